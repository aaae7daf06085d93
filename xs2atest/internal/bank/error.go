package bank

// Error is the bank's refusal: the HTTP status the interface answers with
// (a 4xx), the tppMessage code, the path of the field at fault ("" for
// none) and a text for the TPP (never a PSU id or a body).
type Error struct {
	Status           int
	Code, Path, Text string
}

func (e *Error) Error() string { return "bank: " + e.Code + " " + e.Path + ": " + e.Text }

// Refuse is a 400 refusal with code.
func Refuse(code, path, text string) *Error {
	return &Error{Status: 400, Code: code, Path: path, Text: text}
}

// FormatErr is a 400 FORMAT_ERROR: a field has the wrong form or value.
func FormatErr(path, text string) *Error { return Refuse("FORMAT_ERROR", path, text) }

// Unknown is a 404 RESOURCE_UNKNOWN: no such resource for this TPP.
func Unknown(path, text string) *Error {
	return &Error{Status: 404, Code: "RESOURCE_UNKNOWN", Path: path, Text: text}
}

// errGone refuses an SCA whose payment the bank no longer has (the sandbox
// was initialised since it started).
var errGone = Unknown("paymentId", "The payment is no longer known.")

// errBasketGone refuses a deleted signing basket as an unknown one.
var errBasketGone = Unknown("basketId", "unknown signing basket")
