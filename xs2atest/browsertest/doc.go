// Package browsertest drives the fake bank's SCA pages (package xs2atest) in
// a real browser: headless Chromium, run through the Chrome DevTools
// protocol by chromedp. Its tests sign in with a sandbox customer's national
// id, choose the context, tick accounts or choose the account to pay from,
// and confirm, sign or cancel as a person does; then they check the
// callback the TPP receives and what the SDK can do with it. They need the
// chromium binary (on Debian: apt-get install chromium) and fail, not skip,
// without it.
//
// It is a module of its own, so the SDK's module gains no dependency:
//
//	cd xs2atest/browsertest && go test ./...
//
// The package holds tests only.
package browsertest
