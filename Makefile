# The README's commands, spelled out. `make test` is what CI runs.
.PHONY: test check quickjs build

build:
	go build -o bin/codemode ./cmd/codemode

# Fetch the pinned QuickJS wasm (npm, sha256-checked) for the wazero engine.
quickjs:
	./scripts/fetch-quickjs.sh

test: quickjs
	go test -race -count=1 ./...

check:
	./scripts/check
