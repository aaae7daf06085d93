module github.com/tppkit/xs2a/xs2atest/browsertest

go 1.26.0

replace github.com/tppkit/xs2a => ../..

require (
	github.com/chromedp/chromedp v0.23.0
	github.com/stretchr/testify v1.12.1
	github.com/tppkit/xs2a v0.0.0-00010101000000-000000000000
)

require (
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/go-json-experiment/json v1.27.2 // indirect
	github.com/google/uuid v1.6.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/crypto v0.59.0 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	software.sslmate.com/src/go-pkcs12 v0.7.4 // indirect
)
