package bank

import "time"

// DateOf is the calendar date of t in Europe/Oslo, as midnight UTC.
func DateOf(t time.Time) time.Time {
	y, m, d := t.In(Oslo).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

func FormatDate(t time.Time) string { return t.Format(time.DateOnly) }

func ParseDate(s string) (time.Time, bool) {
	t, err := time.Parse(time.DateOnly, s)
	return t, err == nil
}

var Oslo = func() *time.Location {
	l, err := time.LoadLocation("Europe/Oslo")
	if err != nil {
		panic("xs2atest: " + err.Error())
	}
	return l
}()

// The fake bank's banking days: Monday to Friday, except the Norwegian
// public holidays and the two days banks close (24 and 31 December). A
// requestedExecutionDate that is no longer possible when the PSU signs is
// moved to the next banking day (moveExecDate).

// BankingDay reports whether d (a date at midnight UTC, as DateOf gives)
// Is a banking day.
func BankingDay(d time.Time) bool {
	if wd := d.Weekday(); wd == time.Saturday || wd == time.Sunday {
		return false
	}
	switch m, day := d.Month(), d.Day(); {
	case m == time.January && day == 1,
		m == time.May && (day == 1 || day == 17),
		m == time.December && (day == 24 || day == 25 || day == 26 || day == 31):
		return false
	}
	easter := easterSunday(d.Year())
	for _, offset := range []int{-3, -2, 1, 39, 50} { // Maundy Thursday, Good Friday, Easter Monday, Ascension, Whit Monday
		if d.Equal(easter.AddDate(0, 0, offset)) {
			return false
		}
	}
	return true
}

// NextBankingDay is d when it is a banking day, else the first one after.
func NextBankingDay(d time.Time) time.Time {
	for !BankingDay(d) {
		d = d.AddDate(0, 0, 1)
	}
	return d
}

// easterSunday is the date of Easter Sunday in the Gregorian calendar
// (the anonymous Gregorian algorithm), at midnight UTC.
func easterSunday(year int) time.Time {
	a, b, c := year%19, year/100, year%100
	d, e := b/4, b%4
	f := (b + 8) / 25
	g := (b - f + 1) / 3
	h := (19*a + b - d - g + 15) % 30
	i, k := c/4, c%4
	l := (32 + 2*e + 2*i - h - k) % 7
	m := (a + 11*h + 22*l) / 451
	month := (h + l - 7*m + 114) / 31
	day := (h+l-7*m+114)%31 + 1
	return time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC)
}
