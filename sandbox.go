package xs2a

// SandboxService runs the sandbox's mock-data operations (service.md, Sandbox).
type SandboxService service
