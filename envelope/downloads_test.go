package envelope

import "testing"

func TestDownloadFile(t *testing.T) {
	tests := []struct {
		version string
		status  Status
		want    ItemFile
		bad     bool
	}{
		{"", StatusDraft, ItemFileCurrent, false},
		{"", StatusPending, ItemFileCurrent, false},
		{"", StatusCompleted, ItemFileSealed, false},
		{"signed", StatusDraft, ItemFileCurrent, false},
		{"signed", StatusRejected, ItemFileCurrent, false},
		{"signed", StatusCancelled, ItemFileCurrent, false},
		{"signed", StatusCompleted, ItemFileSealed, false},
		{"original", StatusPending, ItemFileOriginal, false},
		{"original", StatusCompleted, ItemFileOriginal, false},
		{"SIGNED", StatusCompleted, "", true},
		{"latest", StatusDraft, "", true},
	}
	for _, tt := range tests {
		got, err := DownloadFile(tt.version, tt.status)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("DownloadFile(%q, %s) = %q, %v; want %q (error %v)", tt.version, tt.status, got, err, tt.want, tt.bad)
		}
		if err != nil && ErrorCode(err) != CodeInvalidBody {
			t.Errorf("DownloadFile(%q): code %s, want INVALID_BODY", tt.version, ErrorCode(err))
		}
	}
}
