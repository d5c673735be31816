# The README's commands, spelled out. `make test` is what CI runs.
.PHONY: test check quickjs-check build

build:
	go build -o bin/codemode ./cmd/codemode

# Re-derive the embedded QuickJS wasm from npm and compare it byte for byte
# (skipped with a message when npm or its registry is unavailable).
quickjs-check:
	./scripts/fetch-quickjs.sh

test:
	go test -race -count=1 ./...

check:
	./scripts/check
