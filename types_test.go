package xs2a

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestAmountValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		a         Amount
		wantField string
	}{
		{name: "plain", a: Amount{"NOK", "100.26"}},
		{name: "integer", a: Amount{"NOK", "100"}},
		{name: "three decimals", a: Amount{"EUR", "0.125"}},
		{name: "negative", a: Amount{"NOK", "-5.5"}},
		{name: "zero", a: Amount{"NOK", "0"}},
		{name: "fourteen digits", a: Amount{"NOK", "99999999999999.999"}},
		{name: "fifteen digits", a: Amount{"NOK", "100000000000000"}, wantField: "Amount.Amount"},
		{name: "four decimals", a: Amount{"NOK", "1.0001"}, wantField: "Amount.Amount"},
		{name: "comma", a: Amount{"NOK", "100,26"}, wantField: "Amount.Amount"},
		{name: "trailing point", a: Amount{"NOK", "100."}, wantField: "Amount.Amount"},
		{name: "leading point", a: Amount{"NOK", ".5"}, wantField: "Amount.Amount"},
		{name: "plus sign", a: Amount{"NOK", "+5"}, wantField: "Amount.Amount"},
		{name: "exponent", a: Amount{"NOK", "1e2"}, wantField: "Amount.Amount"},
		{name: "spaces", a: Amount{"NOK", " 100"}, wantField: "Amount.Amount"},
		{name: "trailing newline", a: Amount{"NOK", "100\n"}, wantField: "Amount.Amount"},
		{name: "empty amount", a: Amount{"NOK", ""}, wantField: "Amount.Amount"},
		{name: "empty currency", a: Amount{"", "1"}, wantField: "Amount.Currency"},
		{name: "lower-case currency", a: Amount{"nok", "1"}, wantField: "Amount.Currency"},
		{name: "two-letter currency", a: Amount{"NO", "1"}, wantField: "Amount.Currency"},
		{name: "four-letter currency", a: Amount{"NOKK", "1"}, wantField: "Amount.Currency"},
		{name: "digit currency", a: Amount{"578", "1"}, wantField: "Amount.Currency"},
		{name: "non-ascii currency", a: Amount{"NØK", "1"}, wantField: "Amount.Currency"},
		{name: "both wrong: amount first", a: Amount{"x", "y"}, wantField: "Amount.Amount"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.a.Validate()
			if tc.wantField == "" {
				require.NoError(t, err)
				return
			}
			var ve *ValidationError
			require.True(t, errors.As(err, &ve), "error %v", err)
			require.Equal(t, tc.wantField, ve.Field)
			require.True(t, strings.HasPrefix(err.Error(), "xs2a: invalid "+tc.wantField+": "), err.Error())
			if len(tc.a.Amount) > 2 && strings.Contains(ve.Reason, tc.a.Amount) {
				t.Errorf("reason %q repeats the amount", ve.Reason)
			}
		})
	}
}

func TestAmountValidatePrefix(t *testing.T) {
	t.Parallel()
	err := Amount{"NOK", "1,5"}.validate("Payment.InstructedAmount")
	var ve *ValidationError
	require.True(t, errors.As(err, &ve))
	require.Equal(t, "Payment.InstructedAmount.Amount", ve.Field)
	err = Amount{"nok", "1.5"}.validate("Payment.InstructedAmount")
	require.True(t, errors.As(err, &ve))
	require.Equal(t, "Payment.InstructedAmount.Currency", ve.Field)
}

func TestParseAmount(t *testing.T) {
	t.Parallel()
	a, err := ParseAmount("NOK", "100.50")
	require.NoError(t, err)
	require.Equal(t, Amount{Currency: "NOK", Amount: "100.50"}, a)
	require.Equal(t, "100.50 NOK", a.String())

	a, err = ParseAmount("NOK", "1e2")
	var ve *ValidationError
	require.True(t, errors.As(err, &ve))
	require.Equal(t, "Amount.Amount", ve.Field)
	require.Zero(t, a)

	_, err = ParseAmount("kr", "1")
	require.True(t, errors.As(err, &ve))
	require.Equal(t, "Amount.Currency", ve.Field)
}

func TestAmountString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a    Amount
		want string
	}{
		{Amount{"NOK", "100.26"}, "100.26 NOK"},
		{Amount{"EUR", "-1"}, "-1 EUR"},
		{Amount{"", "5"}, "5"},
		{Amount{"NOK", ""}, "NOK"},
		{Amount{}, ""},
	}
	for _, tc := range tests {
		if got := tc.a.String(); got != tc.want {
			t.Errorf("%#v.String() = %q, want %q", tc.a, got, tc.want)
		}
	}
}

func TestAmountUnmarshalJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    Amount
		wantErr bool
	}{
		{name: "string", in: `{"currency":"NOK","amount":"100.26"}`, want: Amount{"NOK", "100.26"}},
		{name: "string kept as sent", in: `{"amount":"100.50","currency":"NOK"}`, want: Amount{"NOK", "100.50"}},
		{name: "string not a decimal", in: `{"currency":"NOK","amount":"abc"}`, wantErr: true},
		{name: "currency not validated", in: `{"currency":"nok","amount":"1"}`, want: Amount{"nok", "1"}},
		{name: "empty string", in: `{"currency":"NOK","amount":""}`, want: Amount{"NOK", ""}},
		{name: "escaped string", in: `{"currency":"NOK","amount":"\u0031.50"}`, want: Amount{"NOK", "1.50"}},
		{name: "escaped exponent", in: `{"currency":"NOK","amount":"1\u00652"}`, wantErr: true},
		{name: "escaped NUL", in: `{"currency":"NOK","amount":"1\u0000"}`, wantErr: true},
		{name: "invalid UTF-8", in: "{\"currency\":\"NOK\",\"amount\":\"1\xff\"}", wantErr: true},
		{name: "number", in: `{"currency":"NOK","amount":100.26}`, want: Amount{"NOK", "100.26"}},
		{name: "number trailing zero kept", in: `{"currency":"NOK","amount":100.50}`, want: Amount{"NOK", "100.50"}},
		{name: "number beyond float precision", in: `{"currency":"NOK","amount":12345678901234.567}`, want: Amount{"NOK", "12345678901234.567"}},
		{name: "number too many digits", in: `{"currency":"NOK","amount":123456789012345}`, wantErr: true},
		{name: "integer", in: `{"currency":"NOK","amount":100}`, want: Amount{"NOK", "100"}},
		{name: "negative", in: `{"currency":"NOK","amount":-0.5}`, want: Amount{"NOK", "-0.5"}},
		{name: "exponent", in: `{"currency":"NOK","amount":1e2}`, wantErr: true},
		{name: "exponent plus", in: `{"currency":"NOK","amount":1E+2}`, wantErr: true},
		{name: "exponent with fraction", in: `{"currency":"NOK","amount":1.0026e2}`, wantErr: true},
		{name: "negative exponent", in: `{"currency":"NOK","amount":15e-1}`, wantErr: true},
		{name: "negative exponent below one", in: `{"currency":"NOK","amount":-1.5e-3}`, wantErr: true},
		{name: "exponent zero", in: `{"currency":"NOK","amount":0e5}`, wantErr: true},
		{name: "exponent zero huge", in: `{"currency":"NOK","amount":0.0e99999999999999999999}`, wantErr: true},
		{name: "exponent overflow", in: `{"currency":"NOK","amount":1e99999999999999999999}`, wantErr: true},
		{name: "amount null", in: `{"currency":"NOK","amount":null}`, want: Amount{"NOK", ""}},
		{name: "amount missing", in: `{"currency":"NOK"}`, want: Amount{"NOK", ""}},
		{name: "unknown fields", in: `{"currency":"NOK","amount":"1","precision":2,"x":{"y":[1]}}`, want: Amount{"NOK", "1"}},
		{name: "whitespace", in: " {\n\"currency\" : \"NOK\" ,\t\"amount\" : 7 } ", want: Amount{"NOK", "7"}},
		{name: "amount bool", in: `{"currency":"NOK","amount":true}`, wantErr: true},
		{name: "amount object", in: `{"currency":"NOK","amount":{"value":1}}`, wantErr: true},
		{name: "amount array", in: `{"currency":"NOK","amount":[1]}`, wantErr: true},
		{name: "currency number", in: `{"currency":578,"amount":"1"}`, wantErr: true},
		{name: "not an object", in: `"100 NOK"`, wantErr: true},
		{name: "invalid JSON", in: `{"currency":"NOK","amount":01}`, wantErr: true},
		{name: "truncated", in: `{"currency":"NOK"`, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := Amount{"OLD", "old"}
			err := json.Unmarshal([]byte(tc.in), &a)
			if tc.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, a)
		})
	}
}

func TestAmountUnmarshalNull(t *testing.T) {
	t.Parallel()
	a := Amount{"NOK", "1"}
	require.NoError(t, json.Unmarshal([]byte(`null`), &a))
	require.Equal(t, Amount{"NOK", "1"}, a, "null leaves the value as it was")

	var holder struct {
		Fee *Amount `json:"transactionFees"`
	}
	require.NoError(t, json.Unmarshal([]byte(`{"transactionFees":null}`), &holder))
	require.Nil(t, holder.Fee)
}

func TestAmountUnmarshalDirectErrors(t *testing.T) {
	t.Parallel()
	var a Amount
	err := a.UnmarshalJSON([]byte(`{"amount":`))
	require.Error(t, err)
	require.True(t, strings.HasPrefix(err.Error(), "xs2a: "), err.Error())
	err = a.UnmarshalJSON([]byte(`{"amount":1e999}`))
	var te *json.UnmarshalTypeError
	require.ErrorAs(t, err, &te)
	require.Equal(t, "amount", te.Field)
}

func TestAmountJSONRoundTrip(t *testing.T) {
	t.Parallel()
	for _, a := range []Amount{{"NOK", "100.26"}, {"EUR", "-0.125"}, {"NOK", "100.50"}, {"", ""}} {
		b, err := json.Marshal(a)
		require.NoError(t, err)
		var back Amount
		require.NoError(t, json.Unmarshal(b, &back))
		require.Equal(t, a, back)
	}
	b, err := json.Marshal(Amount{"NOK", "100.26"})
	require.NoError(t, err)
	require.Equal(t, `{"currency":"NOK","amount":"100.26"}`, string(b), "amounts are sent as strings")

	// A balance in the platform's shape, with a pre-1.7.6 number next to it.
	var doc struct {
		Balances []struct {
			BalanceAmount Amount `json:"balanceAmount"`
			BalanceType   string `json:"balanceType"`
		} `json:"balances"`
	}
	require.NoError(t, json.Unmarshal([]byte(`{"balances":[
		{"balanceAmount":{"amount":"100.26","currency":"NOK"},"balanceType":"closingBooked"},
		{"balanceAmount":{"amount":100.26,"currency":"NOK"},"balanceType":"expected"}]}`), &doc))
	require.Len(t, doc.Balances, 2)
	require.Equal(t, doc.Balances[0].BalanceAmount, doc.Balances[1].BalanceAmount)
}

func FuzzAmount(f *testing.F) {
	for _, s := range []string{
		`{"currency":"NOK","amount":"100.26"}`,
		`{"currency":"NOK","amount":100.50}`,
		`{"currency":"NOK","amount":1e2}`,
		`{"currency":"NOK","amount":-1.5E-3}`,
		`{"currency":"NOK","amount":1e99999999999}`,
		`{"currency":"NOK","amount":null}`,
		`{"currency":"NOK","amount":true}`,
		`{"currency":"NOK","amount":"NaN"}`,
		`{"currency":"NOK","amount":"0x10"}`,
		`{"currency":"NOK","amount":" 5"}`,
		`{"currency":"NOK","amount":"1e400"}`,
		`{"currency":"NOK","amount":"-12.50"}`,
		`{"currency":"NOK","amount":""}`,
		`null`, `[]`, `"x"`, `{`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var a Amount
		if err := a.UnmarshalJSON(b); err != nil {
			return
		}
		// An amount decoded from an answer is a plain decimal or absent.
		if a.Amount != "" && !amountPattern.MatchString(a.Amount) {
			t.Fatalf("decoded %q from %q: not a plain decimal", a.Amount, b)
		}
		err := a.Validate()
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Validate error %T", err)
			}
			return
		}
		if !amountPattern.MatchString(a.Amount) || len(a.Currency) != 3 {
			t.Fatalf("Validate accepted %#v", a)
		}
		out, err := json.Marshal(a)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		var back Amount
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("re-parse %s: %v", out, err)
		}
		if back != a {
			t.Fatalf("round trip %#v -> %s -> %#v", a, out, back)
		}
		if p, err := ParseAmount(a.Currency, a.Amount); err != nil || p != a {
			t.Fatalf("ParseAmount(%q, %q) = %#v, %v", a.Currency, a.Amount, p, err)
		}
	})
}

func TestParseDate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Date
		wantErr bool
	}{
		{in: "2024-01-02", want: Date{2024, time.January, 2}},
		{in: "2024-02-29", want: Date{2024, time.February, 29}},
		{in: "2000-02-29", want: Date{2000, time.February, 29}},
		{in: "0001-01-01", want: Date{1, time.January, 1}},
		{in: "9999-12-31", want: Date{9999, time.December, 31}},
		{in: "2023-02-29", wantErr: true},
		{in: "1900-02-29", wantErr: true},
		{in: "2024-04-31", wantErr: true},
		{in: "2024-13-01", wantErr: true},
		{in: "2024-00-10", wantErr: true},
		{in: "2024-01-00", wantErr: true},
		{in: "2024-01-32", wantErr: true},
		{in: "0000-01-01", wantErr: true},
		{in: "2024-1-02", wantErr: true},
		{in: "2024/01/02", wantErr: true},
		{in: " 2024-01-02", wantErr: true},
		{in: "2024-01-02 ", wantErr: true},
		{in: "+024-01-02", wantErr: true},
		{in: "2024-+1-02", wantErr: true},
		{in: "2024-01-02T10:00:00Z", wantErr: true}, // ParseDate is strict; JSON takes the date part
		{in: "20240102", wantErr: true},
		{in: "", wantErr: true},
		{in: "２０２４-01-02", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			d, err := ParseDate(tc.in)
			if tc.wantErr {
				var ve *ValidationError
				require.True(t, errors.As(err, &ve), "error %v", err)
				require.Equal(t, "Date", ve.Field)
				require.Zero(t, d)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, d)
			require.Equal(t, tc.in, d.String())
		})
	}
}

func TestDateOf(t *testing.T) {
	t.Parallel()
	oslo := time.FixedZone("CET", 3600)
	tm := time.Date(2024, 1, 1, 23, 30, 0, 0, time.UTC) // 00:30 on the 2nd in Oslo
	require.Equal(t, Date{2024, time.January, 1}, DateOf(tm))
	require.Equal(t, Date{2024, time.January, 2}, DateOf(tm.In(oslo)))
	require.True(t, DateOf(time.Time{}).IsZero())
}

func TestDateMethods(t *testing.T) {
	t.Parallel()
	d := Date{2024, time.February, 28}
	require.Equal(t, "2024-02-28", d.String())
	require.Equal(t, "", Date{}.String())
	require.True(t, Date{}.IsZero())
	require.False(t, d.IsZero())

	tests := []struct {
		a, b          Date
		before, after bool
	}{
		{Date{2024, 1, 1}, Date{2024, 1, 2}, true, false},
		{Date{2024, 1, 31}, Date{2024, 2, 1}, true, false},
		{Date{2023, 12, 31}, Date{2024, 1, 1}, true, false},
		{Date{2024, 3, 1}, Date{2024, 2, 29}, false, true},
		{Date{2024, 3, 1}, Date{2024, 3, 1}, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.a.String()+"/"+tc.b.String(), func(t *testing.T) {
			require.Equal(t, tc.before, tc.a.Before(tc.b))
			require.Equal(t, tc.after, tc.a.After(tc.b))
			require.Equal(t, tc.before, tc.b.After(tc.a))
		})
	}

	adds := []struct {
		d    Date
		n    int
		want Date
	}{
		{Date{2024, 2, 28}, 1, Date{2024, 2, 29}},
		{Date{2023, 2, 28}, 1, Date{2023, 3, 1}},
		{Date{2024, 12, 31}, 1, Date{2025, 1, 1}},
		{Date{2024, 1, 1}, -1, Date{2023, 12, 31}},
		{Date{2024, 1, 1}, 366, Date{2025, 1, 1}},
		{Date{2024, 3, 31}, 0, Date{2024, 3, 31}},
		{Date{2024, 3, 31}, -90, Date{2024, 1, 1}},
		{Date{}, 5, Date{}},
	}
	for _, tc := range adds {
		if got := tc.d.AddDays(tc.n); got != tc.want {
			t.Errorf("%v.AddDays(%d) = %v, want %v", tc.d, tc.n, got, tc.want)
		}
	}

	oslo := time.FixedZone("CET", 3600)
	require.Equal(t, time.Date(2024, 2, 28, 0, 0, 0, 0, oslo), d.In(oslo))
	require.Equal(t, time.Date(2024, 2, 28, 0, 0, 0, 0, time.UTC), d.In(nil))
	require.True(t, Date{}.In(oslo).IsZero())
	require.Equal(t, d, DateOf(d.In(oslo)))
}

func TestDateJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    Date
		wantErr bool
	}{
		{name: "date", in: `"2024-01-02"`, want: Date{2024, 1, 2}},
		{name: "date-time offset", in: `"2024-01-02T10:00:00+01:00"`, want: Date{2024, 1, 2}},
		{name: "date-time late, own zone kept", in: `"2024-01-02T23:30:00-05:00"`, want: Date{2024, 1, 2}},
		{name: "date-time Z", in: `"2024-01-02T10:00:00Z"`, want: Date{2024, 1, 2}},
		{name: "date-time millis", in: `"2024-01-02T10:00:00.123+0100"`, want: Date{2024, 1, 2}},
		{name: "date-time no zone", in: `"2024-01-02T10:00:00"`, want: Date{2024, 1, 2}},
		{name: "date-time space", in: `"2024-01-02 10:00:00"`, want: Date{2024, 1, 2}},
		{name: "empty", in: `""`, want: Date{}},
		{name: "null", in: `null`, want: Date{}},
		{name: "invalid date in date-time", in: `"2024-02-30T10:00:00Z"`, wantErr: true},
		{name: "junk after date", in: `"2024-01-02junk"`, wantErr: true},
		{name: "T alone", in: `"2024-01-02T"`, wantErr: true},
		{name: "letters in time", in: `"2024-01-02Tnoon"`, wantErr: true},
		{name: "number", in: `20240102`, wantErr: true},
		{name: "object", in: `{}`, wantErr: true},
		{name: "bad date", in: `"02.01.2024"`, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := Date{1999, 9, 9}
			err := json.Unmarshal([]byte(tc.in), &d)
			if tc.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, d)
		})
	}
}

func TestDateMarshal(t *testing.T) {
	t.Parallel()
	type body struct {
		RequestedExecutionDate Date `json:"requestedExecutionDate,omitzero"`
		EndDate                Date `json:"endDate"`
	}
	b, err := json.Marshal(body{RequestedExecutionDate: Date{2024, 5, 17}, EndDate: Date{2025, 1, 1}})
	require.NoError(t, err)
	require.Equal(t, `{"requestedExecutionDate":"2024-05-17","endDate":"2025-01-01"}`, string(b))

	b, err = json.Marshal(body{})
	require.NoError(t, err)
	require.Equal(t, `{"endDate":null}`, string(b), "omitzero leaves the unset date out; without it, null")

	var back body
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, body{}, back)

	_, err = json.Marshal(Date{2024, 2, 30})
	var ve *ValidationError
	require.True(t, errors.As(err, &ve), "error %v", err)
	_, err = json.Marshal(Date{10000, 1, 1})
	require.Error(t, err)

	// As a map key and in text form.
	m := map[Date]int{{2024, 1, 2}: 1}
	b, err = json.Marshal(m)
	require.NoError(t, err)
	require.Equal(t, `{"2024-01-02":1}`, string(b))
	var mb map[Date]int
	require.NoError(t, json.Unmarshal(b, &mb))
	require.Equal(t, m, mb)
}

func TestDateText(t *testing.T) {
	t.Parallel()
	txt, err := Date{2024, 1, 2}.MarshalText()
	require.NoError(t, err)
	require.Equal(t, "2024-01-02", string(txt))
	txt, err = Date{}.MarshalText()
	require.NoError(t, err)
	require.Empty(t, txt)
	_, err = Date{2023, 2, 29}.MarshalText()
	require.Error(t, err)

	var d Date
	require.NoError(t, d.UnmarshalText([]byte("2024-12-24")))
	require.Equal(t, Date{2024, 12, 24}, d)
	require.NoError(t, d.UnmarshalText(nil))
	require.True(t, d.IsZero())
	d = Date{2024, 12, 24}
	require.Error(t, d.UnmarshalText([]byte("24.12.2024")))
	require.Equal(t, Date{2024, 12, 24}, d, "a failed parse leaves the value")
}

func FuzzDate(f *testing.F) {
	for _, s := range []string{"2024-01-02", "2024-02-29", "2023-02-29", "0000-01-01", "9999-12-31",
		"2024-01-02T10:00:00+01:00", "", "2024-1-2", "２０２４-01-02"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDate(s)
		if err == nil {
			if d.String() != s {
				t.Fatalf("ParseDate(%q).String() = %q", s, d.String())
			}
			tm := d.In(time.UTC)
			// 0001-01-01 UTC is the zero time, which DateOf maps to the
			// zero Date by its documented rule.
			if tm.Format(time.DateOnly) != s || (DateOf(tm) != d && !tm.IsZero()) {
				t.Fatalf("%q does not agree with package time: %v", s, tm)
			}
			if d.AddDays(1).AddDays(-1) != d || !d.AddDays(1).After(d) {
				t.Fatalf("AddDays broken around %q", s)
			}
			b, err := json.Marshal(d)
			if err != nil {
				t.Fatalf("Marshal %q: %v", s, err)
			}
			var back Date
			if err := json.Unmarshal(b, &back); err != nil || back != d {
				t.Fatalf("JSON round trip of %q: %v, %v", s, back, err)
			}
		} else if _, terr := time.Parse(time.DateOnly, s); terr == nil && len(s) == 10 && s[:4] != "0000" {
			t.Fatalf("ParseDate(%q) refused a date package time accepts: %v", s, err)
		}
		// Decoding any JSON string never panics, and success means a valid date.
		b, _ := json.Marshal(s)
		var jd Date
		if err := json.Unmarshal(b, &jd); err == nil && !jd.IsZero() && !jd.valid() {
			t.Fatalf("UnmarshalJSON(%s) gave the invalid %#v", b, jd)
		}
	})
}

func TestAccountReferenceValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		r         AccountReference
		wantField string
	}{
		{name: "bban", r: AccountReference{BBAN: "86011117947", Currency: "NOK"}},
		{name: "iban", r: AccountReference{IBAN: "NO9386011117947"}},
		{name: "iban and matching bban", r: AccountReference{IBAN: "NO9386011117947", BBAN: "86011117947"}},
		{name: "foreign iban", r: AccountReference{IBAN: "DE89370400440532013000", Currency: "EUR"}},
		{name: "masked pan", r: AccountReference{MaskedPAN: "123456xxxxxx1234"}},
		{name: "pan", r: AccountReference{PAN: "5409050000000000"}},
		{name: "msisdn", r: AccountReference{MSISDN: "+4791234567"}},
		{name: "empty", r: AccountReference{}, wantField: "Payment.DebtorAccount"},
		{name: "currency only", r: AccountReference{Currency: "NOK"}, wantField: "Payment.DebtorAccount"},
		{name: "bad bban", r: AccountReference{BBAN: "86011117948"}, wantField: "Payment.DebtorAccount.BBAN"},
		{name: "formatted bban", r: AccountReference{BBAN: "8601.11.17947"}, wantField: "Payment.DebtorAccount.BBAN"},
		{name: "bad iban", r: AccountReference{IBAN: "NO9386011117948"}, wantField: "Payment.DebtorAccount.IBAN"},
		{name: "iban with spaces", r: AccountReference{IBAN: "NO93 8601 1117 947"}, wantField: "Payment.DebtorAccount.IBAN"},
		{name: "iban and other bban", r: AccountReference{IBAN: "NO9386011117947", BBAN: "00000000000"}, wantField: "Payment.DebtorAccount.BBAN"},
		{name: "lower-case currency", r: AccountReference{BBAN: "86011117947", Currency: "nok"}, wantField: "Payment.DebtorAccount.Currency"},
		{name: "pan too long", r: AccountReference{PAN: strings.Repeat("1", 36)}, wantField: "Payment.DebtorAccount.PAN"},
		{name: "masked pan control char", r: AccountReference{MaskedPAN: "1234\n"}, wantField: "Payment.DebtorAccount.MaskedPAN"},
		{name: "msisdn emoji", r: AccountReference{MSISDN: "☎"}, wantField: "Payment.DebtorAccount.MSISDN"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.r.validate("Payment.DebtorAccount")
			if tc.wantField == "" {
				require.NoError(t, err)
				require.NoError(t, tc.r.Validate())
				return
			}
			var ve *ValidationError
			require.True(t, errors.As(err, &ve), "error %v", err)
			require.Equal(t, tc.wantField, ve.Field)
			for _, v := range []string{tc.r.IBAN, tc.r.BBAN, tc.r.PAN, tc.r.MaskedPAN, tc.r.MSISDN} {
				if v != "" && strings.Contains(err.Error(), v) {
					t.Errorf("error %q repeats %q", err, v)
				}
			}
			require.True(t, errors.As(tc.r.Validate(), &ve))
			require.True(t, strings.HasPrefix(ve.Field, "AccountReference"), ve.Field)
		})
	}
}

func TestAccountReferenceJSON(t *testing.T) {
	t.Parallel()
	r := AccountReference{BBAN: "86011117947", Currency: "NOK"}
	b, err := json.Marshal(r)
	require.NoError(t, err)
	require.Equal(t, `{"bban":"86011117947","currency":"NOK"}`, string(b))

	var all AccountReference
	require.NoError(t, json.Unmarshal([]byte(
		`{"iban":"NO9386011117947","bban":"86011117947","pan":"p","maskedPan":"m","msisdn":"s","currency":"NOK","other":1}`), &all))
	require.Equal(t, AccountReference{IBAN: "NO9386011117947", BBAN: "86011117947", PAN: "p", MaskedPAN: "m", MSISDN: "s", Currency: "NOK"}, all)
	b, err = json.Marshal(all)
	require.NoError(t, err)
	var back AccountReference
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, all, back)
}
