package xs2a

import (
	"os"
	"strings"
	"testing"
)

// TestModelFilesLinkTheSpecification: each file of models links the Berlin
// Group specification once, with the version its shapes follow.
func TestModelFilesLinkTheSpecification(t *testing.T) {
	const link = "Berlin Group NextGenPSD2 XS2A Framework 1.3.12\n// (https://www.berlin-group.org/nextgenpsd2-downloads)"
	for _, f := range []string{"ais_models.go", "transaction_models.go", "pis_models.go", "payment_details.go",
		"status.go", "types.go", "links.go"} {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(src), link); n != 1 {
			t.Errorf("%s links the specification %d times, want once", f, n)
		}
	}
}
