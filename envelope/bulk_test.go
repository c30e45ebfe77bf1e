package envelope

import (
	"fmt"
	"strings"
	"testing"
)

func bulkTemplate() ([]Recipient, []Field) {
	label := "Company"
	tpl := []Recipient{{ID: 7, Email: "", Name: "Signer"}, {ID: 9, Email: "cc@example.com", Name: "Copy"}}
	fields := []Field{
		{ID: 100, RecipientID: 7, Type: FieldSignature},
		{ID: 101, RecipientID: 7, Type: FieldText, FieldMeta: &FieldMeta{Label: &label}},
		{ID: 102, RecipientID: 7, Type: FieldCheckbox},
	}
	return tpl, fields
}

func issues(p *Problems) string {
	err := p.Err()
	if err == nil {
		return ""
	}
	var out []string
	for _, is := range err.(*Error).Issues {
		out = append(out, is.Path+": "+is.Message)
	}
	return strings.Join(out, "\n")
}

func TestParseBulkCSV(t *testing.T) {
	tpl, fields := bulkTemplate()
	tests := []struct {
		name     string
		csv      string
		wantRows int
		want     string // a part of the problems; "" for none
	}{
		{"emails and names", "recipient_1_email,recipient_1_name,recipient_2_email\na@x.cl,Ana,\nb@x.cl,,\n", 2, ""},
		{"byte-order mark, spaces and an empty line", "\ufeff recipient_1_email , recipient_2_email\n\na@x.cl,c@x.cl\n", 1, ""},
		{"prefill by id and by label", "recipient_1_email,recipient_2_email,field_101,Company\na@x.cl,,x,y\n", 0, `column "Company" prefills field 101, as column "field_101" does`},
		{"prefill by label", "recipient_1_email,recipient_2_email,Company\na@x.cl,,Acme\n", 1, ""},
		{"a bad email is a row's problem, not the file's", "recipient_1_email,recipient_2_email\nnot-an-email,\n", 1, ""},
		{"missing email column", "recipient_1_email,recipient_1_name\na@x.cl,Ana\n", 0, `column "recipient_2_email" is missing`},
		{"recipient out of range", "recipient_1_email,recipient_2_email,recipient_3_email\na,b,c\n", 0, `names recipient 3; the template has 2`},
		{"unknown column", "recipient_1_email,recipient_2_email,phone\na,b,c\n", 0, `column "phone" is neither`},
		{"a checkbox cannot be prefilled", "recipient_1_email,recipient_2_email,field_102\na,b,c\n", 0, "CHECKBOX field cannot be prefilled"},
		{"duplicate column", "recipient_1_email,recipient_2_email,recipient_1_email\na,b,c\n", 0, `appears twice`},
		{"a NUL character names the row and column", "recipient_1_email,recipient_2_email\na@x.cl,b\x00@x.cl\n", 0, `row 1, column "recipient_2_email": holds a NUL character`},
		{"the same column written another way", "recipient_1_email,recipient_2_email,recipient_01_email\na,b,c\n", 0, `column "recipient_01_email" sets what column "recipient_1_email" sets`},
		{"wrong number of values names the row", "recipient_1_email,recipient_2_email\na@x.cl,\nb@x.cl\n", 1, "row 2 has 1 values; the header has 2 columns"},
		{"bad quoting names the row", "recipient_1_email,recipient_2_email\na@x.cl,\n\"b@x.cl,\n", 1, "row 2 is not valid CSV"},
		{"empty file", "", 0, "is empty"},
		{"header only", "recipient_1_email,recipient_2_email\n", 0, "holds no rows"},
		{"too many rows", "recipient_1_email,recipient_2_email\n" + strings.Repeat("a@x.cl,\n", MaxBulkRows+1), 0, "more than 1000 rows"},
		{"exactly the limit", "recipient_1_email,recipient_2_email\n" + strings.Repeat("a@x.cl,\n", MaxBulkRows), MaxBulkRows, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Problems
			rows := ParseBulkCSV(&p, "file", strings.NewReader(tt.csv), tpl, fields)
			got := issues(&p)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Fatalf("problems = %q, want %q", got, tt.want)
			}
			if tt.want == "" && len(rows) != tt.wantRows {
				t.Fatalf("rows = %d, want %d", len(rows), tt.wantRows)
			}
		})
	}
}

func TestParseBulkCSVRow(t *testing.T) {
	tpl, fields := bulkTemplate()
	var p Problems
	rows := ParseBulkCSV(&p, "file", strings.NewReader("recipient_2_email,recipient_1_email,recipient_1_name,field_101\n,a@x.cl, Ana ,Acme\n"), tpl, fields)
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	if got := fmt.Sprint(r.Recipients); got != "[{7 a@x.cl Ana} {9  }]" {
		t.Errorf("recipients = %s", got)
	}
	if len(r.PrefillFields) != 1 || *r.PrefillFields[0].ID != 101 || *r.PrefillFields[0].Type != "text" || string(r.PrefillFields[0].Value) != `"Acme"` {
		t.Errorf("prefills = %+v", r.PrefillFields)
	}
}

func TestBulkRowProblem(t *testing.T) {
	tpl, _ := bulkTemplate()
	long := strings.Repeat("n", MaxRecipientName+1)
	tests := []struct {
		name string
		row  BulkRow
		want string
	}{
		{"good", BulkRow{Recipients: []BulkRecipient{{ID: 7, Email: "a@x.cl"}}}, ""},
		{"empty email keeps the template's", BulkRow{Recipients: []BulkRecipient{{ID: 9, Email: ""}}}, ""},
		{"no email anywhere: sent by link", BulkRow{}, ""},
		{"bad email", BulkRow{Recipients: []BulkRecipient{{ID: 7, Email: "nope"}}}, `recipient 1 (recipient_1_email): "nope" is not an email address`},
		{"bad email of the second", BulkRow{Recipients: []BulkRecipient{{ID: 9, Email: "a@"}}}, `recipient 2 (recipient_2_email)`},
		{"long name", BulkRow{Recipients: []BulkRecipient{{ID: 7, Email: "a@x.cl", Name: long}}}, "recipient 1 (recipient_1_name): the name is longer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := BulkRowProblem(tt.row, tpl)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("BulkRowProblem = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCheckBulkRowShape(t *testing.T) {
	tpl, fields := bulkTemplate()
	id := func(n int64) *int64 { return &n }
	long := strings.Repeat("x", MaxExternalID+1)
	tests := []struct {
		name string
		row  BulkRow
		want string
	}{
		{"good", BulkRow{Recipients: []BulkRecipient{{ID: 7}, {ID: 9}}, PrefillFields: []Prefill{{ID: id(101)}}}, ""},
		{"unknown recipient", BulkRow{Recipients: []BulkRecipient{{ID: 8}}}, "rows[0].recipients[0].id: recipient 8 is not in the template"},
		{"recipient twice", BulkRow{Recipients: []BulkRecipient{{ID: 7}, {ID: 7}}}, "rows[0].recipients[1].id: recipient 7 appears twice"},
		{"prefill without id", BulkRow{PrefillFields: []Prefill{{}}}, "rows[0].prefillFields[0].id: is required"},
		{"unknown field", BulkRow{PrefillFields: []Prefill{{ID: id(5)}}}, "rows[0].prefillFields[0].id: field 5 is not in the template"},
		{"external id too long", BulkRow{ExternalID: &long}, "rows[0].externalId"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Problems
			CheckBulkRowShape(&p, "rows[0]", tt.row, tpl, fields)
			got := issues(&p)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("problems = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCheckBulkRowCount(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{{0, "at least one row"}, {1, ""}, {MaxBulkRows, ""}, {MaxBulkRows + 1, "holds 1001 rows; a bulk send takes at most 1000"}} {
		var p Problems
		CheckBulkRowCount(&p, "rows", tt.n)
		if got := issues(&p); (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%d rows: %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestBulkRowFinal(t *testing.T) {
	for _, tt := range []struct {
		name    string
		err     error
		attempt int32
		want    bool
	}{
		{"validation", Invalid("recipients[0].email", "bad"), 1, true},
		{"quota", Errorf(CodeTooManyRequests, "quota"), 1, true},
		{"template gone", fmt.Errorf("row 3: %w", NotFound("Envelope")), 1, true},
		{"temporal away", Errorf(CodeUnavailable, "away"), 1, false},
		{"internal", Errorf(CodeInternal, "bug"), 1, false},
		{"database", fmt.Errorf("connection refused"), 1, false},
		{"database, one attempt short", fmt.Errorf("connection refused"), BulkRowAttempts - 1, false},
		{"database, the last attempt", fmt.Errorf("connection refused"), BulkRowAttempts, true},
		{"temporal away, the last attempt", Errorf(CodeUnavailable, "away"), BulkRowAttempts, true},
	} {
		if got := BulkRowFinal(tt.err, tt.attempt); got != tt.want {
			t.Errorf("%s: BulkRowFinal = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestBulkError(t *testing.T) {
	if got := []rune(BulkError(strings.Repeat("é", MaxBulkError+5))); len(got) != MaxBulkError {
		t.Errorf("cut to %d runes, want %d", len(got), MaxBulkError)
	}
	if got := BulkError("short"); got != "short" {
		t.Errorf("BulkError(short) = %q", got)
	}
}
