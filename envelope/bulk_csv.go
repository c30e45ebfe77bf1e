package envelope

import (
	"encoding/csv"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
)

// ParseBulkCSV reads a bulk send's CSV (comma-separated, UTF-8, an optional byte-order mark, a
// header line, empty lines skipped) for a template with recipients tpl (in their order) and
// fields:
//   - recipient_{n}_email is required for every template recipient n (1-based, in order) and
//     recipient_{n}_name is optional, as in Documenso's CSV template; an empty cell keeps the
//     template's value;
//   - field_{id}, or the label of exactly one template field, prefills that field with the
//     cell's text (TEXT, NUMBER, DATE, DROPDOWN and RADIO fields); an empty cell leaves it;
//   - any other column, a column twice (recipient_01_email is recipient_1_email), a NUL
//     character (which no text column stores), a line with a wrong number of values or more than
//     MaxBulkRows rows makes the file malformed: every problem is recorded at file, naming the
//     row (1-based, after the header) and the column.
//
// A value that is only bad (an invalid email) is not a problem here: BulkRowProblem finds it
// and the row is recorded FAILED.
func ParseBulkCSV(p *Problems, path string, r io.Reader, tpl []Recipient, fields []Field) []BulkRow {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1 // counted here, to name the row
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		p.Add(path, "is empty: it needs a header line with %s", BulkEmailColumn(0))
		return nil
	}
	if err != nil {
		p.Add(path, "is not a CSV file: %v", err)
		return nil
	}
	cols, ok := bulkColumns(p, path, header, tpl, fields)
	if !ok {
		return nil
	}
	var rows []BulkRow
	for n := 1; ; n++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			p.Add(path, "row %d is not valid CSV: %v", n, err)
			return nil
		}
		if n > MaxBulkRows {
			p.Add(path, "holds more than %d rows; a bulk send takes at most %d (send the rest in another)", MaxBulkRows, MaxBulkRows)
			return nil
		}
		if len(rec) != len(header) {
			p.Add(path, "row %d has %d values; the header has %d columns", n, len(rec), len(header))
			continue
		}
		if i := slices.IndexFunc(rec, func(cell string) bool { return strings.ContainsRune(cell, 0) }); i >= 0 {
			p.Add(path, "row %d, column %q: holds a NUL character", n, header[i])
			continue
		}
		rows = append(rows, bulkRowOf(rec, cols, tpl))
	}
	if len(rows) == 0 && p.Len() == 0 {
		p.Add(path, "holds no rows after its header")
	}
	return rows
}

// bulkColumn is what one CSV column sets: a template recipient's email or name (recipient is
// its index), or a field's prefill.
type bulkColumn struct {
	recipient int
	name      bool
	field     *Field
}

// bulkColumns reads the header; ok is false when it is malformed.
func bulkColumns(p *Problems, path string, header []string, tpl []Recipient, fields []Field) ([]bulkColumn, bool) {
	before := p.Len()
	cols := make([]bulkColumn, len(header))
	seen := map[string]bool{}
	prefilled := map[int64]string{} // field id: the column that prefills it
	set := map[bulkColumn]string{}  // a recipient's email or name: the column that sets it
	for i, h := range header {
		if i == 0 {
			h = strings.TrimPrefix(h, "\ufeff")
		}
		h = strings.TrimSpace(h)
		header[i] = h
		if seen[h] {
			p.Add(path, "column %q appears twice", h)
			continue
		}
		seen[h] = true
		if idx, name, ok := recipientColumn(h); ok {
			if idx >= len(tpl) {
				p.Add(path, "column %q names recipient %d; the template has %d", h, idx+1, len(tpl))
			}
			cols[i] = bulkColumn{recipient: idx, name: name}
			if other, twice := set[cols[i]]; twice {
				p.Add(path, "column %q sets what column %q sets", h, other)
			}
			set[cols[i]] = h
			continue
		}
		f, ok := bulkFieldByColumn(fields, h)
		if !ok {
			p.Add(path, "column %q is neither recipient_{n}_email, recipient_{n}_name nor a template field (field_{id} or its label)", h)
			continue
		}
		if _, ok := bulkPrefillTypes[f.Type]; !ok {
			p.Add(path, "column %q: a %s field cannot be prefilled from a CSV", h, f.Type)
			continue
		}
		if other, twice := prefilled[f.ID]; twice {
			p.Add(path, "column %q prefills field %d, as column %q does", h, f.ID, other)
			continue
		}
		prefilled[f.ID] = h
		cols[i] = bulkColumn{field: &f}
	}
	for i := range tpl {
		if !seen[BulkEmailColumn(i)] {
			p.Add(path, "column %q is missing: every template recipient needs its email column", BulkEmailColumn(i))
		}
	}
	return cols, p.Len() == before
}

// recipientColumn parses recipient_{n}_email and recipient_{n}_name: idx is n-1.
func recipientColumn(h string) (idx int, name, ok bool) {
	rest, found := strings.CutPrefix(h, "recipient_")
	if !found {
		return 0, false, false
	}
	num, kind, found := strings.Cut(rest, "_")
	n, err := strconv.Atoi(num)
	if !found || err != nil || n < 1 || (kind != "email" && kind != "name") {
		return 0, false, false
	}
	return n - 1, kind == "name", true
}

// bulkRowOf is one CSV line as a row.
func bulkRowOf(rec []string, cols []bulkColumn, tpl []Recipient) BulkRow {
	row := BulkRow{Recipients: make([]BulkRecipient, len(tpl))}
	for i, tr := range tpl {
		row.Recipients[i].ID = tr.ID
	}
	for i, c := range cols {
		cell := strings.TrimSpace(rec[i])
		switch {
		case c.field != nil:
			if cell != "" {
				row.PrefillFields = append(row.PrefillFields, bulkPrefill(*c.field, cell))
			}
		case c.name:
			row.Recipients[c.recipient].Name = cell
		default:
			row.Recipients[c.recipient].Email = cell
		}
	}
	return row
}
