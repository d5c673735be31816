package enginetest

import (
	"os"
	"slices"
	"strings"
)

// The test262 runners of gojaengine and wazeroengine (TestTest262Wrappers,
// scripts/test262-wrappers) share the list of directories and the reading
// of a test's front matter.

// Test262Dirs are the test262 directories (under test/built-ins) of the
// built-ins the sandbox wraps (glue.js, sizes.js, common.js) or adds
// (es.js, intl.js).
var Test262Dirs = []string{
	// glue.js: size-checked constructors (Proxies) and methods
	"ArrayBuffer",
	"TypedArrayConstructors",
	"TypedArray",
	"String/prototype/concat",
	"Array/prototype/join",
	"Array/prototype/map",
	"Array/prototype/sort",
	"Array/prototype/toReversed",
	"Array/prototype/keys",
	"Array/prototype/values",
	"Array/prototype/entries",
	"Array/prototype/Symbol.iterator",
	"ArrayIteratorPrototype",
	"Array/prototype/toSpliced",
	"Array/prototype/with",
	"Array/prototype/indexOf",
	"Array/prototype/lastIndexOf",
	"Array/prototype/includes",
	"Array/from",
	// sizes.js
	"String/prototype/repeat",
	"String/prototype/padStart",
	"String/prototype/padEnd",
	"Array/prototype/fill",
	"Proxy", // the constructor notes the proxies it makes; revocable
	// common.js
	"Function/prototype/toString",
	// es.js (polyfills: bare goja lacks most, so these count as sandbox only)
	"Object/groupBy",
	"Map/groupBy",
	"Promise/withResolvers",
	"Promise/try",
	"String/prototype/isWellFormed",
	"String/prototype/toWellFormed",
	"Array/fromAsync",
	"RegExp/escape",
	"Math/sumPrecise",
	"WeakRef",
	"FinalizationRegistry",
	"Uint8Array",
	"Iterator",
	// intl.js
	"String/prototype/localeCompare",
	"Number/prototype/toLocaleString",
	"BigInt/prototype/toLocaleString",
	"Date/prototype/toLocaleString",
	"Date/prototype/toLocaleDateString",
	"Date/prototype/toLocaleTimeString",
}

// Test262DirList is Test262Dirs, or the comma-separated directories of
// $CODEMODE_TEST262_DIRS (e.g. "RegExp/unicodeSets,RegExp/regexp-modifiers"
// to count the regexp features regexlower adds).
func Test262DirList() []string {
	if d := os.Getenv("CODEMODE_TEST262_DIRS"); d != "" {
		return strings.Split(d, ",")
	}
	return Test262Dirs
}

// test262Skip are the features neither engine has (from upstream goja's
// own test262 runner, less those the sandbox adds).
var test262Skip = []string{
	"async-iteration", "Symbol.asyncIterator", "resizable-arraybuffer",
	"regexp-duplicate-named-groups", "regexp-unicode-property-escapes",
	"regexp-match-indices", "regexp-modifiers", "legacy-regexp",
	"tail-call-optimization", "Temporal", "import-assertions", "dynamic-import",
	"import.meta", "Atomics", "Atomics.waitAsync", "Atomics.pause", "__getter__",
	"__setter__", "ShadowRealm", "SharedArrayBuffer", "decorators",
	"immutable-arraybuffer", "joint-iteration", "iterator-sequencing",
	"regexp-v-flag", "symbols-as-weakmap-keys", "explicit-resource-management",
	"source-phase-imports",
	"import-attributes", "import-defer", "cross-realm",
}

// Test262Meta is a test's front matter, as the runners use it.
type Test262Meta struct {
	Includes, Flags, Features []string
	NegPhase, NegType         string
}

// Skip reports a test neither engine runs: module or raw, or a feature
// neither has.
func (m Test262Meta) Skip() bool {
	if slices.Contains(m.Flags, "module") || slices.Contains(m.Flags, "raw") {
		return true
	}
	unskip := strings.Split(os.Getenv("CODEMODE_TEST262_FEATURES"), ",") // features to run anyway
	for _, f := range m.Features {
		if slices.Contains(test262Skip, f) && !slices.Contains(unskip, f) {
			return true
		}
	}
	return false
}

// ParseTest262Meta reads the YAML front matter test262 uses: lists inline
// ([a, b]) or as "- a" lines, and negative's phase and type.
func ParseTest262Meta(src string) Test262Meta {
	var m Test262Meta
	i := strings.Index(src, "/*---")
	j := strings.Index(src, "---*/")
	if i < 0 || j < i {
		return m
	}
	var list *[]string
	inNegative := false
	for _, line := range strings.Split(src[i+5:j], "\n") {
		tl := strings.TrimSpace(line)
		if strings.HasPrefix(tl, "- ") && list != nil {
			*list = append(*list, strings.TrimSpace(tl[2:]))
			continue
		}
		indented := strings.HasPrefix(line, " ")
		if inNegative && indented {
			if k, v, ok := strings.Cut(tl, ":"); ok {
				switch k {
				case "phase":
					m.NegPhase = strings.TrimSpace(v)
				case "type":
					m.NegType = strings.TrimSpace(v)
				}
			}
			continue
		}
		if indented {
			continue
		}
		list, inNegative = nil, false
		k, v, ok := strings.Cut(tl, ":")
		if !ok {
			continue
		}
		switch k {
		case "includes":
			list = &m.Includes
		case "flags":
			list = &m.Flags
		case "features":
			list = &m.Features
		case "negative":
			inNegative = true
			continue
		default:
			continue
		}
		v = strings.TrimSpace(v)
		if strings.HasPrefix(v, "[") {
			for _, s := range strings.Split(strings.Trim(v, "[]"), ",") {
				if s = strings.TrimSpace(s); s != "" {
					*list = append(*list, s)
				}
			}
			list = nil
		}
	}
	return m
}
