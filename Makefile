# The README's commands, spelled out. `make test` is what CI runs.
.PHONY: test check quickjs policyclient build

build:
	go build -o bin/codemode ./cmd/codemode

# Fetch the pinned QuickJS wasm (npm, sha256-checked) for the wazero engine.
quickjs:
	./scripts/fetch-quickjs.sh

# The official TypeScript MCP client, pinned, for the policy end-to-end tests.
policyclient:
	cd cmd/codemode/testdata/policyclient && npm ci --no-audit --no-fund

test: quickjs policyclient
	go test -race -count=1 ./...

check:
	./scripts/check
