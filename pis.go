package xs2a

// PaymentsService initiates, authorises, reads and cancels payments
// (service.md, Endpoints: POST /v1/payments/{product} and the links it returns).
type PaymentsService service

// SigningBasketsService groups payments for one SCA (POST /v1/signing-baskets).
type SigningBasketsService service
