package quickjs

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/tetratelabs/wazero/api"
)

// The emscripten build minifies every import and export name ("a".."u",
// "v".."Pa"), and the minification changes from build to build. The glue
// (.cjs) is the only key: it assigns exports to readable names
// (`c._QTS_Eval=b.qa`) and defines each import inline in one object literal
// (`ua={b:(a,d,b,e)=>N(...Assertion failed...),...}`).
//
// We read exports from the glue's assignments, and identify each import by a
// pattern over its glue implementation. Every pattern must match exactly
// once, every wasm import must be claimed by exactly one pattern, and every
// signature must equal the one written here; anything else is an error at
// load time, never a guess.

// abi maps semantic names to the module's minified names.
type abi struct {
	importModule string            // the module name of every import ("a")
	imports      map[string]string // minified import name → semantic name
	exports      map[string]string // semantic name → minified export name
}

type sig struct{ params, results []api.ValueType }

var (
	i32 = api.ValueTypeI32
	i64 = api.ValueTypeI64
	f64 = api.ValueTypeF64
)

func s(params []api.ValueType, results ...api.ValueType) sig {
	return sig{params: params, results: results}
}

func p(ts ...api.ValueType) []api.ValueType { return ts }

// importPatterns identify the glue's implementation of each import. They
// are written against the pinned glue (GlueSHA256), so a new package version
// fails here loudly instead of binding a Go function to the wrong import.
var importPatterns = []struct {
	name    string
	pattern string
	sig     sig
}{
	{"__assert_fail", `([\w$]+):\(a,d,b,e\)=>[\w$]+\(` + "`Assertion failed", s(p(i32, i32, i32, i32))},
	{"abort", `([\w$]+):\(\)=>[\w$]+\(""\)`, s(p())},
	{"_emscripten_runtime_keepalive_clear", `([\w$]+):\(\)=>\{[\w$]+=!1;[\w$]+=0\}`, s(p())},
	{"_localtime_js", `([\w$]+):function\(a,d\)\{a=-9007199254740992>a`, s(p(i64, i32))},
	{"_setitimer_js", `([\w$]+):\(a,d\)=>\{[\w$]+\[a\]&&\(clearTimeout`, s(p(i32, f64), i32)},
	{"_tzset_js", `([\w$]+):\(a,d,b,e\)=>\{var f=\(new Date\)\.getFullYear\(\)`, s(p(i32, i32, i32, i32))},
	{"clock_time_get", `([\w$]+):function\(a,d,b\)\{if\(!\(0<=a&&3>=a\)\)return 28`, s(p(i32, i64, i32), i32)},
	{"emscripten_date_now", `([\w$]+):\(\)=>Date\.now\(\)`, s(p(), f64)},
	{"emscripten_resize_heap", `([\w$]+):a=>\{var d=[\w$]+\.length;a>>>=0;if\(2147483648<a\)`, s(p(i32), i32)},
	{"environ_get", `([\w$]+):\(a,d\)=>\{var b=0,e=0,f;for\(f of`, s(p(i32, i32), i32)},
	{"environ_sizes_get", `([\w$]+):\(a,d\)=>\{var b=[\w$]+\(\);[\w$]+\[a>>2\]=b\.length`, s(p(i32, i32), i32)},
	{"fd_close", `([\w$]+):\(\)=>52[,}]`, s(p(i32), i32)},
	{"fd_seek", `([\w$]+):function\(\)\{return 70\}`, s(p(i32, i64, i32, i32), i32)},
	{"fd_write", `([\w$]+):\(a,d,b,e\)=>\{for\(var f=0,g=0;g<b;g\+\+\)`, s(p(i32, i32, i32, i32), i32)},
	{"qts_host_call_function", `([\w$]+):function\([\w$,]+\)\{return c\.callbacks\.callFunction\(`, s(p(i32, i32, i32, i32, i32), i32)},
	{"qts_host_interrupt_handler", `([\w$]+):function\([\w$,]+\)\{return c\.callbacks\.shouldInterrupt\(`, s(p(i32), i32)},
	{"qts_host_load_module_source", `([\w$]+):function\([\w$,]+\)\{[^{}]*return c\.callbacks\.loadModuleSource\(`, s(p(i32, i32, i32), i32)},
	{"qts_host_normalize_module", `([\w$]+):function\([\w$,]+\)\{[^{}]*return c\.callbacks\.normalizeModule\(`, s(p(i32, i32, i32, i32), i32)},
	{"qts_host_free_host_ref", `([\w$]+):function\([\w$,]+\)\{c\.callbacks\.freeHostRef\(`, s(p(i32, i32))},
	// proc_exit and the memory are referenced by variable: resolved below.
	{"proc_exit", "", s(p(i32))},
}

// exportSigs lists the exports this package calls, with their signatures
// (wasm32: pointers and size_t are i32, double is f64).
var exportSigs = map[string]sig{
	"__wasm_call_ctors":                 s(p()),
	"malloc":                            s(p(i32), i32),
	"free":                              s(p(i32)),
	"QTS_NewRuntime":                    s(p(), i32),
	"QTS_NewContext":                    s(p(i32, i32), i32),
	"QTS_FreeContext":                   s(p(i32)),
	"QTS_RuntimeSetMaxStackSize":        s(p(i32, i32)),
	"QTS_RuntimeEnableInterruptHandler": s(p(i32)),
	"QTS_RuntimeEnableModuleLoader":     s(p(i32, i32)),
	"QTS_Eval":                          s(p(i32, i32, i32, i32, i32, i32), i32),
	"QTS_Call":                          s(p(i32, i32, i32, i32, i32), i32),
	"QTS_ExecutePendingJob":             s(p(i32, i32, i32), i32),
	"QTS_IsJobPending":                  s(p(i32), i32),
	"QTS_FreeValuePointer":              s(p(i32, i32)),
	"QTS_DupValuePointer":               s(p(i32, i32), i32),
	"QTS_NewString":                     s(p(i32, i32), i32),
	"QTS_GetString":                     s(p(i32, i32), i32),
	"QTS_FreeCString":                   s(p(i32, i32)),
	"QTS_NewFloat64":                    s(p(i32, f64), i32),
	"QTS_GetFloat64":                    s(p(i32, i32), f64),
	"QTS_NewFunction":                   s(p(i32, i32, i32, i32, i32), i32),
	"QTS_GetGlobalObject":               s(p(i32), i32),
	"QTS_ArgvGetJSValueConstPointer":    s(p(i32, i32), i32),
	"QTS_GetUndefined":                  s(p(), i32),
	"QTS_Typeof":                        s(p(i32, i32), i32),
	"QTS_Throw":                         s(p(i32, i32), i32),
	"QTS_NewError":                      s(p(i32), i32),
	"QTS_SetProp":                       s(p(i32, i32, i32, i32)),
	"QTS_ResolveException":              s(p(i32, i32), i32),
	"QTS_GetPropNumber":                 s(p(i32, i32, i32), i32),
}

var (
	reExport   = regexp.MustCompile(`c\._([\w$]+)=[\w$]+\.([\w$]+);`)
	reExports  = regexp.MustCompile(`function a\(b\)\{b=([\w$]+)=b\.exports;`)
	reImportOb = regexp.MustCompile(`var [\w$]+=\{([\w$]+):([\w$]+)\};if\(c\.instantiateWasm\)`)
	reMemVar   = regexp.MustCompile(`c\.wasmMemory\?([\w$]+)=c\.wasmMemory`)
	reExitVar  = regexp.MustCompile(`([\w$]+)=a=>\{[\w$]+=a;[\w$]+\|\|0<[\w$]+\|\|\(c\.onExit`)
)

// parseGlue reads the ABI out of the glue text.
func parseGlue(glue string) (*abi, error) {
	a := &abi{imports: map[string]string{}, exports: map[string]string{}}

	for _, m := range reExport.FindAllStringSubmatch(glue, -1) {
		if old, dup := a.exports[m[1]]; dup && old != m[2] {
			return nil, fmt.Errorf("glue assigns export %s twice (%s, %s)", m[1], old, m[2])
		}
		a.exports[m[1]] = m[2]
	}
	// The constructors run through the exports object, not an assignment:
	// `Z=b.exports ... Z.v()`.
	if m := reExports.FindStringSubmatch(glue); m != nil {
		ctors := regexp.MustCompile(regexp.QuoteMeta(m[1])+`\.([\w$]+)\(\)`).FindAllStringSubmatch(glue, -1)
		if len(ctors) != 1 {
			return nil, fmt.Errorf("glue: found %d calls of the exports object, want 1 (__wasm_call_ctors)", len(ctors))
		}
		a.exports["__wasm_call_ctors"] = ctors[0][1]
	}

	m := reImportOb.FindStringSubmatch(glue)
	if m == nil {
		return nil, fmt.Errorf("glue: cannot find the import object")
	}
	a.importModule = m[1]
	obj := m[2]
	// The import object literal: `<obj>={ ... }` up to the matching brace.
	i := strings.Index(glue, obj+"={")
	if i < 0 {
		return nil, fmt.Errorf("glue: cannot find the import object literal %s", obj)
	}
	lit, err := braced(glue[i+len(obj)+1:])
	if err != nil {
		return nil, fmt.Errorf("glue: import object: %w", err)
	}
	lit = "{" + lit[1:] // keep the leading brace so patterns can anchor on "{" or ","

	claim := func(min, sem string) error {
		if prev, dup := a.imports[min]; dup {
			return fmt.Errorf("glue: import %q claimed by both %s and %s", min, prev, sem)
		}
		a.imports[min] = sem
		return nil
	}
	for _, ip := range importPatterns {
		if ip.pattern == "" {
			continue
		}
		ms := regexp.MustCompile(`[{,]`+ip.pattern).FindAllStringSubmatch(lit, -1)
		if len(ms) != 1 {
			return nil, fmt.Errorf("glue: the pattern for import %s matched %d times, want 1", ip.name, len(ms))
		}
		if err := claim(ms[0][1], ip.name); err != nil {
			return nil, err
		}
	}
	byVar := func(re *regexp.Regexp, sem string) error {
		v := re.FindStringSubmatch(glue)
		if v == nil {
			return fmt.Errorf("glue: cannot find the variable for %s", sem)
		}
		ms := regexp.MustCompile(`[{,]([\w$]+):`+regexp.QuoteMeta(v[1])+`[,}]`).FindAllStringSubmatch(lit, -1)
		if len(ms) != 1 {
			return fmt.Errorf("glue: import %s (variable %s) found %d times, want 1", sem, v[1], len(ms))
		}
		return claim(ms[0][1], sem)
	}
	if err := byVar(reMemVar, "memory"); err != nil {
		return nil, err
	}
	if err := byVar(reExitVar, "proc_exit"); err != nil {
		return nil, err
	}
	return a, nil
}

// braced returns the prefix of s (which starts with '{') up to and
// including the matching '}', skipping string and template literals.
func braced(s string) (string, error) {
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if quote != 0 {
			switch c {
			case '\\':
				i++
			case quote:
				quote = 0
			}
			continue
		}
		switch c {
		case '"', '\'', '`':
			quote = c
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return s[:i+1], nil
			}
		}
	}
	return "", fmt.Errorf("unbalanced braces")
}

// check verifies the ABI against the compiled module: every function import
// is claimed and has the expected signature, the memory is the only other
// import, and every export we call exists with the expected signature.
func (a *abi) check(imports []api.FunctionDefinition, exports map[string]api.FunctionDefinition) error {
	want := map[string]sig{}
	for _, ip := range importPatterns {
		want[ip.name] = ip.sig
	}
	seen := map[string]bool{}
	for _, f := range imports {
		mod, name, _ := f.Import()
		if mod != a.importModule {
			return fmt.Errorf("wasm imports %s.%s from an unexpected module (want %q)", mod, name, a.importModule)
		}
		sem, ok := a.imports[name]
		if !ok {
			return fmt.Errorf("wasm import %s.%s is not recognised in the glue", mod, name)
		}
		ws := want[sem]
		if !slices.Equal(ws.params, f.ParamTypes()) || !slices.Equal(ws.results, f.ResultTypes()) {
			return fmt.Errorf("wasm import %s.%s (%s) has signature %v→%v, want %v→%v",
				mod, name, sem, f.ParamTypes(), f.ResultTypes(), ws.params, ws.results)
		}
		seen[sem] = true
	}
	for _, ip := range importPatterns {
		if !seen[ip.name] {
			return fmt.Errorf("the glue defines import %s but the wasm does not import it", ip.name)
		}
	}
	for sem, ws := range exportSigs {
		min, ok := a.exports[sem]
		if !ok {
			return fmt.Errorf("the glue does not map export %s", sem)
		}
		f, ok := exports[min]
		if !ok {
			return fmt.Errorf("wasm does not export %s (glue name %q)", sem, min)
		}
		if !slices.Equal(ws.params, f.ParamTypes()) || !slices.Equal(ws.results, f.ResultTypes()) {
			return fmt.Errorf("wasm export %s (%s) has signature %v→%v, want %v→%v",
				min, sem, f.ParamTypes(), f.ResultTypes(), ws.params, ws.results)
		}
	}
	return nil
}
