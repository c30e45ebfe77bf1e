package envelope

import (
	"testing"
	"time"
)

func TestRemindNow(t *testing.T) {
	sent := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	now := sent.Add(48 * time.Hour)
	settings := &ReminderSettings{SendAfter: Duration{Unit: UnitDay, Amount: 2}, RepeatEvery: Duration{Unit: UnitDay, Amount: 1}}
	byMail := Meta{DistributionMethod: DistributionEmail, ReminderSettings: settings}
	signer := &Participant{ID: 1, Role: RoleSigner, Status: SigningStatusNotSigned}
	tests := []struct {
		name      string
		m         Meta
		r         Reminding
		p         *Participant
		mayActNow bool
		now       time.Time
		want      bool
	}{
		{"due", byMail, Reminding{SentAt: sent}, signer, true, now, true},
		{"the fifth", byMail, Reminding{SentAt: sent, Count: 4}, signer, true, now, true},
		{"after the fifth", byMail, Reminding{SentAt: sent, Count: MaxReminders}, signer, true, now, false},
		{"at the horizon", byMail, Reminding{SentAt: sent}, signer, true, sent.Add(ReminderHorizon), true},
		{"beyond the horizon", byMail, Reminding{SentAt: sent}, signer, true, sent.Add(ReminderHorizon + time.Second), false},
		{"sent by link", Meta{DistributionMethod: DistributionNone, ReminderSettings: settings}, Reminding{SentAt: sent}, signer, true, now, false},
		{"reminders switched off", Meta{DistributionMethod: DistributionEmail}, Reminding{SentAt: sent}, signer, true, now, false},
		{"removed", byMail, Reminding{SentAt: sent}, nil, true, now, false},
		{"signed", byMail, Reminding{SentAt: sent}, &Participant{ID: 1, Role: RoleSigner, Status: SigningStatusSigned}, true, now, false},
		{"not their turn", byMail, Reminding{SentAt: sent}, signer, false, now, false},
		{"out of time", byMail, Reminding{SentAt: sent}, &Participant{ID: 1, Role: RoleSigner, Status: SigningStatusNotSigned, ExpiresAt: &now}, true, now, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RemindNow(tt.m, tt.r, tt.p, tt.mayActNow, tt.now); got != tt.want {
				t.Errorf("RemindNow = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestReminderSchedule(t *testing.T) {
	sent := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	settings := &ReminderSettings{SendAfter: Duration{Unit: UnitDay, Amount: 2}, RepeatEvery: Duration{Unit: UnitWeek, Amount: 1}}
	if got := FirstReminder(nil, sent); !got.IsZero() {
		t.Errorf("FirstReminder without settings = %v, want zero", got)
	}
	if got := FirstReminder(settings, sent); !got.Equal(sent.Add(2 * day)) {
		t.Errorf("FirstReminder = %v, want two days after the request", got)
	}
	tests := []struct {
		name  string
		count int
		now   time.Time
		want  time.Time
	}{
		{"after the first", 1, sent.Add(2 * day), sent.Add(9 * day)},
		{"the next within the horizon", 2, sent.Add(23 * day), sent.Add(30 * day)},
		{"the next beyond the horizon", 2, sent.Add(24 * day), time.Time{}},
		{"after the fifth", MaxReminders, sent.Add(3 * day), time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NextReminder(settings, Reminding{SentAt: sent, Count: tt.count}, tt.now); !got.Equal(tt.want) {
				t.Errorf("NextReminder = %v, want %v", got, tt.want)
			}
		})
	}
}
