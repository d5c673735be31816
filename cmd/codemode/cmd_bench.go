package main

import (
	"context"
	"fmt"
)

func cmdBench(ctx context.Context, env *cliEnv, args []string) int {
	fmt.Fprintln(env.stderr, "codemode bench: not built yet")
	return exitFail
}
