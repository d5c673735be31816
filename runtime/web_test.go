package runtime_test

import (
	"context"
	"testing"
	"time"

	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/scope"
)

// TestWebGlobalsPersist: the web globals and Intl a persistent
// environment built stay built, and their objects keep working, in later
// programs that do not name them (goja builds a group only for a script
// that names it; see engine.WebGlobals).
func TestWebGlobalsPersist(t *testing.T) {
	for _, eng := range []string{runtime.EngineGoja, runtime.EngineWazero} {
		t.Run(eng, func(t *testing.T) {
			rt, err := runtime.New(runtime.Options{Engine: eng, Limits: runtime.Limits{Timeout: 10 * time.Second}})
			if err != nil {
				t.Fatal(err)
			}
			defer rt.Close()
			host := scope.NewHost("h")
			defer host.Dispose()
			preset := host.Child(scope.KindPreset, "p")
			plugin := preset.Child(scope.KindPlugin, "codemode")
			agent := preset.Child(scope.KindAgent, "a")
			es := rt.NewEnvironments(plugin, runtime.EnvOptions{})
			o := es.Owner(agent, "codemode")
			for i, c := range []struct{ code, want string }{
				{`var u = new URL("https://a.example/x?y=1"); var nf = new Intl.NumberFormat("de-DE"); var enc = new TextEncoder(); return 1`, `1`},
				{`return [u.searchParams.get("y"), nf.format(1234.5), enc.encode("é").length, typeof globalThis["U" + "RL"]]`, `["1","1.234,5",2,"function"]`},
				{`return (9876.5).toLocaleString("fr-FR")`, "\"9\u202f876,5\""}, // a narrow no-break space
			} {
				out := es.Run(context.Background(), o, runtime.Request{Code: c.code})
				if out.Err != nil {
					t.Fatalf("program %d: %v", i+1, out.Err)
				}
				if string(out.Value) != c.want {
					t.Errorf("program %d: got %s, want %s", i+1, out.Value, c.want)
				}
			}
		})
	}
}
