package xs2a

import (
	"cmp"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Shapes follow the Berlin Group NextGenPSD2 XS2A Framework 1.3.12
// (https://www.berlin-group.org/nextgenpsd2-downloads); docs/interface.md lists where the platform differs.

// PaymentDetails is a payment as GET on its self link answers it
// (PaymentsService.Get, docs/interface.md PP5): the initiation body as the
// bank holds it now, with the payment's id and status. Exactly one of
// Payment, Periodic and Bulk is set, by the answer's shape: a payments member
// makes it bulk, frequency or startDate periodic.
type PaymentDetails struct {
	PaymentID         string            `json:"paymentId,omitempty"`
	TransactionStatus TransactionStatus `json:"transactionStatus,omitempty"`
	FundsAvailable    *bool             `json:"fundsAvailable,omitempty"` // false for too little money (nil: not said)
	Payment           *Payment          `json:"-"`                        // a single payment's body
	Periodic          *PeriodicPayment  `json:"-"`                        // a standing order's body
	Bulk              *BulkPayment      `json:"-"`                        // a bulk payment's body
	Messages          []TPPMessage      `json:"tppMessages,omitempty"`
	// Extra holds members neither the fields above nor the body name (see Extra).
	Extra Extra `json:"-"`
}

// detailsHead is PaymentDetails without its methods: its tagged fields are
// what a payment read adds to the initiation body.
type detailsHead PaymentDetails

// detailsWire is the wire form of a payment read: the head and the body B
// at one level, the members neither names in Extra.
type detailsWire[B any] struct {
	detailsHead
	Body  B     `json:",embed"`
	Extra Extra `json:",embed"`
}

// UnmarshalJSONFrom decodes into the body the shape names; other members go
// to Extra.
func (d *PaymentDetails) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if null, err := unmarshalJSONFromNull(dec); null || err != nil {
		return err
	}
	data, err := dec.ReadValue()
	if err != nil {
		return err
	}
	var shape struct {
		Payments  jsontext.Value `json:"payments"`
		Frequency jsontext.Value `json:"frequency"`
		StartDate jsontext.Value `json:"startDate"`
	}
	if err := decodeJSON(data, &shape); err != nil {
		return err
	}
	var out PaymentDetails
	switch {
	case present(shape.Payments):
		out.Bulk, err = decodeDetails[BulkPayment](data, &out)
	case present(shape.Frequency) || present(shape.StartDate):
		out.Periodic, err = decodeDetails[PeriodicPayment](data, &out)
	default:
		out.Payment, err = decodeDetails[Payment](data, &out)
	}
	if err != nil {
		return err
	}
	*d = out
	return nil
}

// decodeDetails decodes data as a payment read with a body B: the head and
// Extra into d, the body returned.
func decodeDetails[B any](data []byte, d *PaymentDetails) (*B, error) {
	var w detailsWire[B]
	if err := decodeJSON(data, &w); err != nil {
		return nil, err
	}
	*d = PaymentDetails(w.detailsHead)
	d.Extra = w.Extra
	return &w.Body, nil
}

// present reports whether a member was sent with a value other than null.
func present(v jsontext.Value) bool { return len(v) > 0 && v.Kind() != 'n' }

// MarshalJSONTo encodes the payment read as the bank sends it: the head,
// the body that is set (Bulk, else Periodic, else Payment) and the Extra
// members neither names.
func (d PaymentDetails) MarshalJSONTo(enc *jsontext.Encoder) error {
	switch {
	case d.Bulk != nil:
		return encodeDetails(enc, d, *d.Bulk)
	case d.Periodic != nil:
		return encodeDetails(enc, d, *d.Periodic)
	}
	return encodeDetails(enc, d, *cmp.Or(d.Payment, &Payment{}))
}

// encodeDetails writes the head of d, body and the members of d.Extra
// neither names.
func encodeDetails[B any](enc *jsontext.Encoder, d PaymentDetails, body B) error {
	extra, err := d.Extra.without(detailsHead{})
	if err == nil {
		extra, err = extra.without(body)
	}
	if err != nil {
		return err
	}
	return jsonv2.MarshalEncode(enc, detailsWire[B]{detailsHead(d), body, extra})
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (d *PaymentDetails) UnmarshalJSON(data []byte) error { return decodeJSON(data, d) }

// MarshalJSON is MarshalJSONTo for encoding/json.
func (d PaymentDetails) MarshalJSON() ([]byte, error) { return encodeJSON(d) }
