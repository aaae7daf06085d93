package xs2a

import (
	"encoding/json"
	"reflect"
)

// PaymentDetails is a payment as GET on its self link answers it
// (PaymentsService.Get, docs/interface.md PP5): the initiation body as the
// bank holds it, changes the PSU made in the bank's own channels included,
// with the payment's id and status. Exactly one of Payment, Periodic and
// Bulk is set, by the answer's shape: an answer with a payments member is a
// bulk payment, one with frequency or startDate a periodic payment, any
// other a single payment. A moved execution date shows in the body's
// RequestedExecutionDate (Bulk's for a bulk payment).
type PaymentDetails struct {
	PaymentID         string
	TransactionStatus TransactionStatus
	// FundsAvailable is false when the bank found too little money for the
	// payment (nil when the bank did not say).
	FundsAvailable *bool
	// Payment is a single payment's body (POST /v1/payments/{product}).
	Payment *Payment
	// Periodic is a standing order's body (POST /v1/periodic-payments/{product}).
	Periodic *PeriodicPayment
	// Bulk is a bulk payment's body (POST /v1/bulk-payments/{product}).
	Bulk     *BulkPayment
	Messages []TPPMessage
	// Extra holds the members the bank sent that neither the fields above
	// nor the payment's body name (see Extra).
	Extra Extra
}

// paymentDetailsHead is what a payment read adds to the initiation body.
type paymentDetailsHead struct {
	PaymentID         string            `json:"paymentId,omitempty"`
	TransactionStatus TransactionStatus `json:"transactionStatus,omitempty"`
	FundsAvailable    *bool             `json:"fundsAvailable,omitempty"`
	Messages          []TPPMessage      `json:"tppMessages,omitempty"`
}

// The wire forms of a payment read: the head and the body at one level.
type (
	singleDetails struct {
		paymentDetailsHead
		Payment
	}
	periodicDetails struct {
		paymentDetailsHead
		PeriodicPayment
	}
	bulkDetails struct {
		paymentDetailsHead
		BulkPayment
	}
)

var (
	singleDetailsNames   = namesOf(reflect.TypeFor[singleDetails](), "")
	periodicDetailsNames = namesOf(reflect.TypeFor[periodicDetails](), "")
	bulkDetailsNames     = namesOf(reflect.TypeFor[bulkDetails](), "")
)

// UnmarshalJSON decodes a payment read into the body its shape names;
// members neither the head nor that body name go to Extra.
func (d *PaymentDetails) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var shape struct {
		Payments  json.RawMessage `json:"payments"`
		Frequency json.RawMessage `json:"frequency"`
		StartDate json.RawMessage `json:"startDate"`
	}
	if err := decodeNested(data, &shape); err != nil {
		return err
	}
	var out PaymentDetails
	var head paymentDetailsHead
	switch {
	case present(shape.Payments):
		var w bulkDetails
		if err := unmarshalWithExtra(data, &w, &out.Extra, bulkDetailsNames); err != nil {
			return err
		}
		head, out.Bulk = w.paymentDetailsHead, &w.BulkPayment
	case present(shape.Frequency) || present(shape.StartDate):
		var w periodicDetails
		if err := unmarshalWithExtra(data, &w, &out.Extra, periodicDetailsNames); err != nil {
			return err
		}
		head, out.Periodic = w.paymentDetailsHead, &w.PeriodicPayment
	default:
		var w singleDetails
		if err := unmarshalWithExtra(data, &w, &out.Extra, singleDetailsNames); err != nil {
			return err
		}
		head, out.Payment = w.paymentDetailsHead, &w.Payment
	}
	out.PaymentID, out.TransactionStatus, out.FundsAvailable, out.Messages = head.PaymentID, head.TransactionStatus, head.FundsAvailable, head.Messages
	*d = out
	return nil
}

// present reports whether a member was sent with a value other than null.
func present(raw json.RawMessage) bool { return len(raw) > 0 && !isNull(raw) }

// MarshalJSON encodes the payment read as the bank sends it: the head, the
// body that is set (Bulk, else Periodic, else Payment) and the Extra members.
func (d PaymentDetails) MarshalJSON() ([]byte, error) {
	head := paymentDetailsHead{PaymentID: d.PaymentID, TransactionStatus: d.TransactionStatus, FundsAvailable: d.FundsAvailable, Messages: d.Messages}
	switch {
	case d.Bulk != nil:
		return marshalWithExtra(bulkDetails{head, *d.Bulk}, d.Extra, bulkDetailsNames)
	case d.Periodic != nil:
		return marshalWithExtra(periodicDetails{head, *d.Periodic}, d.Extra, periodicDetailsNames)
	}
	var p Payment
	if d.Payment != nil {
		p = *d.Payment
	}
	return marshalWithExtra(singleDetails{head, p}, d.Extra, singleDetailsNames)
}
