package xs2a

import (
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
	PaymentID         string
	TransactionStatus TransactionStatus
	// FundsAvailable is false for too little money (nil: not said).
	FundsAvailable *bool
	// Payment is a single payment's body (POST /v1/payments/{product}).
	Payment *Payment
	// Periodic is a standing order's body (POST /v1/periodic-payments/{product}).
	Periodic *PeriodicPayment
	// Bulk is a bulk payment's body (POST /v1/bulk-payments/{product}).
	Bulk     *BulkPayment
	Messages []TPPMessage
	// Extra holds members neither the fields above nor the body name (see Extra).
	Extra Extra
}

// paymentDetailsHead is what a payment read adds to the initiation body.
type paymentDetailsHead struct {
	PaymentID         string            `json:"paymentId,omitempty"`
	TransactionStatus TransactionStatus `json:"transactionStatus,omitempty"`
	FundsAvailable    *bool             `json:"fundsAvailable,omitempty"`
	Messages          []TPPMessage      `json:"tppMessages,omitempty"`
}

// The wire forms of a payment read: the head and the body at one level,
// the members neither names in Extra.
type (
	singleDetails struct {
		paymentDetailsHead
		Payment
		Extra Extra `json:",embed"`
	}
	periodicDetails struct {
		paymentDetailsHead
		PeriodicPayment
		Extra Extra `json:",embed"`
	}
	bulkDetails struct {
		paymentDetailsHead
		BulkPayment
		Extra Extra `json:",embed"`
	}
)

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
	var head paymentDetailsHead
	switch {
	case present(shape.Payments):
		var w bulkDetails
		if err := decodeJSON(data, &w); err != nil {
			return err
		}
		head, out.Bulk, out.Extra = w.paymentDetailsHead, &w.BulkPayment, w.Extra
	case present(shape.Frequency) || present(shape.StartDate):
		var w periodicDetails
		if err := decodeJSON(data, &w); err != nil {
			return err
		}
		head, out.Periodic, out.Extra = w.paymentDetailsHead, &w.PeriodicPayment, w.Extra
	default:
		var w singleDetails
		if err := decodeJSON(data, &w); err != nil {
			return err
		}
		head, out.Payment, out.Extra = w.paymentDetailsHead, &w.Payment, w.Extra
	}
	out.PaymentID, out.TransactionStatus, out.FundsAvailable, out.Messages = head.PaymentID, head.TransactionStatus, head.FundsAvailable, head.Messages
	*d = out
	return nil
}

// present reports whether a member was sent with a value other than null.
func present(v jsontext.Value) bool { return len(v) > 0 && v.Kind() != 'n' }

// MarshalJSONTo encodes the payment read as the bank sends it: the head,
// the body that is set (Bulk, else Periodic, else Payment) and the Extra
// members neither names.
func (d PaymentDetails) MarshalJSONTo(enc *jsontext.Encoder) error {
	head := paymentDetailsHead{PaymentID: d.PaymentID, TransactionStatus: d.TransactionStatus, FundsAvailable: d.FundsAvailable, Messages: d.Messages}
	extra, err := d.Extra.without(head)
	if err != nil {
		return err
	}
	switch {
	case d.Bulk != nil:
		if extra, err = extra.without(*d.Bulk); err == nil {
			err = jsonv2.MarshalEncode(enc, bulkDetails{head, *d.Bulk, extra})
		}
	case d.Periodic != nil:
		if extra, err = extra.without(*d.Periodic); err == nil {
			err = jsonv2.MarshalEncode(enc, periodicDetails{head, *d.Periodic, extra})
		}
	default:
		var p Payment
		if d.Payment != nil {
			p = *d.Payment
		}
		if extra, err = extra.without(p); err == nil {
			err = jsonv2.MarshalEncode(enc, singleDetails{head, p, extra})
		}
	}
	return err
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (d *PaymentDetails) UnmarshalJSON(data []byte) error { return decodeJSON(data, d) }

// MarshalJSON is MarshalJSONTo for encoding/json.
func (d PaymentDetails) MarshalJSON() ([]byte, error) { return encodeJSON(d) }
