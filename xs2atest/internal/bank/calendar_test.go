package bank

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func day(s string) time.Time {
	d, ok := ParseDate(s)
	if !ok {
		panic("bad date " + s)
	}
	return d
}

func TestBankingDays(t *testing.T) {
	t.Parallel()
	tests := []struct {
		date    string
		banking bool
		next    string
	}{
		{"2025-03-12", true, "2025-03-12"},  // a Wednesday
		{"2025-03-15", false, "2025-03-17"}, // Saturday
		{"2025-03-16", false, "2025-03-17"}, // Sunday
		{"2025-01-01", false, "2025-01-02"}, // New Year's Day
		{"2025-04-17", false, "2025-04-22"}, // Maundy Thursday, Good Friday, Easter, Easter Monday
		{"2025-04-18", false, "2025-04-22"},
		{"2025-04-21", false, "2025-04-22"},
		{"2025-05-01", false, "2025-05-02"}, // Labour Day
		{"2026-05-14", false, "2026-05-15"}, // Ascension Day 2026
		{"2025-05-17", false, "2025-05-19"}, // Constitution Day, a Saturday in 2025
		{"2025-06-09", false, "2025-06-10"}, // Whit Monday
		{"2025-12-24", false, "2025-12-29"}, // Christmas Eve to Boxing Day, then the weekend
		{"2025-12-31", false, "2026-01-02"}, // New Year's Eve, New Year's Day
		{"2026-04-07", true, "2026-04-07"},  // the Tuesday after Easter 2026
	}
	for _, tt := range tests {
		t.Run(tt.date, func(t *testing.T) {
			assert.Equal(t, tt.banking, BankingDay(day(tt.date)))
			assert.Equal(t, tt.next, FormatDate(NextBankingDay(day(tt.date))))
		})
	}
}

func TestEasterSunday(t *testing.T) {
	t.Parallel()
	for year, want := range map[int]string{2000: "2000-04-23", 2024: "2024-03-31", 2025: "2025-04-20",
		2026: "2026-04-05", 2038: "2038-04-25", 2285: "2285-03-22"} {
		assert.Equal(t, want, FormatDate(easterSunday(year)), year)
	}
}
