package xs2a_test

import (
	"path/filepath"
	"testing"

	"github.com/tppkit/xs2a/internal/schemacheck"
	"github.com/tppkit/xs2a/xs2atest"
)

// The Berlin Group NextGenPSD2 1.3.12 OpenAPI file (testdata/openapi, with
// its notice) and the deviations docs/interface.md lists; and the
// project's own description of the platform's dialect.
var (
	bgSpec       = filepath.Join("testdata", "openapi", "berlin-group-psd2-api-1.3.12.yaml")
	interfaceDoc = filepath.Join("docs", "interface.md")
	dialectSpec  = filepath.Join("docs", "openapi.yaml")
)

// schemaHook checks every answer of a test's fake bank against the Berlin
// Group 1.3.12 schemas (kin-openapi), where docs/interface.md lists no
// deviation, and against docs/openapi.yaml, which must describe every
// answer as it is (docs/interface.md BG1, OA2): an answer that breaks
// either fails the test. newBankAt installs it, so the whole end-to-end
// suite is checked. Answers a Fault wrote are the test's own, and are not
// checked.
func schemaHook(t *testing.T) xs2atest.Option {
	t.Helper()
	bg, err := schemacheck.Load(bgSpec, interfaceDoc)
	if err != nil {
		t.Fatal(err)
	}
	dialect, err := schemacheck.LoadDialect(dialectSpec)
	if err != nil {
		t.Fatal(err)
	}
	return xs2atest.WithAnswerHook(func(x xs2atest.Exchange) {
		if x.Fault {
			return
		}
		for _, c := range []*schemacheck.Checker{bg, dialect} {
			if _, err := c.Check(x.Method, x.Path, x.RawQuery, x.Status, x.Header, x.Body); err != nil {
				t.Error(err)
			}
		}
	})
}
