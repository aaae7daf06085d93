package xs2a

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestValidationFieldsListed: every ValidationError.Field the package writes
// as a literal is listed in the README's "Which field a ValidationError
// names", and every dotted path listed there is a real Go path: its type
// exists and each field after it does (an element's [i] included).
func TestValidationFieldsListed(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(readme), "### Which field a ValidationError names")
	require.True(t, ok)
	section, _, _ = strings.Cut(section, "\n### ")
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("`([A-Za-z][A-Za-z0-9.\\[\\]]*)`").FindAllStringSubmatch(section, -1) {
		listed[m[1]] = true
	}

	files, err := os.ReadDir(".")
	require.NoError(t, err)
	literal := regexp.MustCompile(`(?:invalid|errNoAuthorisation|checkResourceID|checkRequired)\("([^"]+)"|ValidationError\{Field: "([^"]+)"|option\([^,()]+, "([^"]+)"|field: +"([^"]+)"`)
	seen := 0
	for _, f := range files {
		name := f.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		require.NoError(t, err)
		for _, m := range literal.FindAllStringSubmatch(string(src), -1) {
			field := m[1] + m[2] + m[3] + m[4]
			seen++
			assert.True(t, listed[field], "%s: Field %q is not listed in the README", name, field)
		}
	}
	require.Greater(t, seen, 40, "the scan found the package's fields")

	types := map[string]reflect.Type{}
	for _, v := range []any{PSU{}, Payment{}, BulkPayment{}, PeriodicPayment{}, EInvoice{}, TransactionsOptions{},
		PollOptions{}, SignerOptions{}, SandboxCustomer{}, Amount{}, AccountReference{}} {
		types[reflect.TypeOf(v).Name()] = reflect.TypeOf(v)
	}
	for path := range listed { // a frontend is told each of them (ProblemOf)
		assert.Equal(t, path, ProblemOf(&ValidationError{Field: path}).Field)
	}
	for path := range listed {
		if !strings.Contains(path, ".") || strings.Contains(path, "(") {
			continue
		}
		parts := strings.Split(regexp.MustCompile(`\[[0-9]+\]`).ReplaceAllString(path, ""), ".")
		typ, ok := types[parts[0]]
		if !ok {
			continue // a method (Amount.Validate) or a type the table does not hold
		}
		for _, p := range parts[1:] {
			for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
				typ = typ.Elem()
			}
			f, ok := typ.FieldByName(p)
			if _, isMethod := reflect.PointerTo(typ).MethodByName(p); !ok && isMethod {
				break
			}
			require.True(t, ok, "%s: %s has no field %s", path, typ, p)
			typ = f.Type
		}
	}
}
