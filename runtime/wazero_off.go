package runtime

import (
	"errors"

	"github.com/codemode/codemode/runtime/internal/engine"
)

func newWazero(rt *Runtime) (engine.Engine, error) {
	return nil, errors.New("the wazero engine is not built yet")
}
