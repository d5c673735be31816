package webapi

import (
	"compress/gzip"
	"embed"
	"encoding/json"
	"errors"
	"strings"
	"sync"

	"golang.org/x/text/language"
)

// Intl, backed by CLDR data: golang.org/x/text for what it exposes
// (language tags and matching, plural rules, collation, currency digits and
// symbols beyond the table below) and, for what it does not (date and time
// patterns and names, list, relative-time, compact and unit patterns,
// currency placement and names, the number symbols of CLDR's current
// version), intldata/*.json.gz (one file per locale), read from ICU by scripts/intlgen.mjs. Time
// zones are Go's database (time/tzdata is linked, so no host file is
// read).
//
// The prelude's intl.js reads a constructor's options in the order
// ECMA-402 reads them and sends them here with the locales; "resolve"
// validates them and returns the resolved options in V8's order, which
// the object keeps and sends back with every format call.

//go:embed intldata/*.json.gz
var intlFS embed.FS

// intlData is intldata/_meta.json.gz: the names table the date patterns
// refer to, and the locales there are files for.
type intlData struct {
	ICU     string     `json:"icu"`
	CLDR    string     `json:"cldr"`
	Locales []string   `json:"locales"`
	Names   [][]string `json:"names"`
}

type localeDat struct {
	Number   numberDat          `json:"number"`
	Date     dateDat            `json:"date"`
	List     map[string]listDat `json:"list"`
	Relative map[string]relDat  `json:"relative"`
	Display  displayDat         `json:"display"`
}

type numberDat struct {
	Decimal, Group, Minus, Plus, PercentSign, Exp, Inf, NaN string
	Primary, Secondary, MinGroup                            int
	DecimalNeg, Percent, PercentNeg                         string
	Currency, CurrencyNeg, CurrencyAccNeg                   string
	CurrencyCode, CurrencyCodeNeg                           string
	Currencies                                              map[string]currencyDat
	Compact                                                 map[string]map[string]map[string]compactDat
	Units                                                   map[string]map[string]map[string]string
}

type currencyDat struct {
	Symbol, Narrow string
	Name           map[string]string
}

type compactDat struct {
	T string `json:"t"`
	Z int    `json:"z"`
}

type dateDat struct {
	Date   map[string]string     `json:"date"`
	Time   map[string]string     `json:"time"`
	Glue   map[string]*string    `json:"glue"`
	Pairs  map[string]string     `json:"pairs"`
	Styles map[string]string     `json:"styles"`
	TZ     map[string]tzNamesDat `json:"tz"`
	GMT    [2][4]string          `json:"gmt"`
}

type tzNamesDat struct {
	Short, Long [2]string
}

type listDat struct{ Pair, Start, Middle, End string }

type relDat struct {
	Past, Future map[string]string
	Auto         map[string]string
}

var (
	intlOnce    sync.Once
	intlDB      *intlData
	intlTags    []language.Tag
	intlKeys    []string
	intlMatcher language.Matcher

	localeMu   sync.Mutex
	localeData = map[string]*localeDat{}
)

func readGz(name string, v any) {
	f, err := intlFS.Open("intldata/" + name + ".json.gz")
	if err != nil {
		panic("webapi: intldata: " + err.Error()) // embedded: cannot happen
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		panic("webapi: intldata: " + err.Error())
	}
	if err := json.NewDecoder(zr).Decode(v); err != nil {
		panic("webapi: intldata " + name + ": " + err.Error())
	}
}

// loadIntl reads the shared table; each locale's data is read the first
// time a program uses the locale (localeFor).
func loadIntl() *intlData {
	intlOnce.Do(func() {
		var d intlData
		readGz("_meta", &d)
		intlDB = &d
		// en first: the matcher's default.
		intlKeys = append(intlKeys, "en")
		for _, k := range d.Locales {
			if k != "en" {
				intlKeys = append(intlKeys, k)
			}
		}
		for _, k := range intlKeys {
			intlTags = append(intlTags, language.MustParse(k))
		}
		intlMatcher = language.NewMatcher(intlTags)
	})
	return intlDB
}

func localeFor(key string) *localeDat {
	localeMu.Lock()
	defer localeMu.Unlock()
	if d, ok := localeData[key]; ok {
		return d
	}
	d := new(localeDat)
	readGz(key, d)
	localeData[key] = d
	return d
}

// DefaultLocale is the locale of a program that names none.
const DefaultLocale = "en-US"

// canonicalLocales is Intl.getCanonicalLocales.
func canonicalLocales(list []string) ([]string, error) {
	out := []string{}
	seen := map[string]bool{}
	for _, s := range list {
		t, err := language.Parse(s)
		var unknown language.ValueError
		if errors.As(err, &unknown) {
			// well-formed, but not a language x/text knows: canonical
			// case by hand
			if c, ok := caseTag(s); ok {
				if !seen[c] {
					seen[c] = true
					out = append(out, c)
				}
				continue
			}
		}
		if err != nil || s == "" || strings.ContainsAny(s, " _") {
			return nil, rangeError("Incorrect locale information provided")
		}
		c := t.String()
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out, nil
}

// caseTag gives a well-formed tag its canonical case: language lower,
// script title, region upper.
func caseTag(s string) (string, bool) {
	parts := strings.Split(s, "-")
	for i, p := range parts {
		if p == "" || len(p) > 8 {
			return "", false
		}
		for _, c := range p {
			if !isASCIIAlnum(c) {
				return "", false
			}
		}
		switch {
		case i == 0:
			if len(p) < 2 || len(p) > 8 {
				return "", false
			}
			parts[i] = strings.ToLower(p)
		case len(p) == 4 && isASCIIAlpha(rune(p[0])):
			parts[i] = strings.ToUpper(p[:1]) + strings.ToLower(p[1:])
		case len(p) == 2 || (len(p) == 3 && isASCIIDigit(rune(p[0]))):
			parts[i] = strings.ToUpper(p)
		default:
			parts[i] = strings.ToLower(p)
		}
	}
	return strings.Join(parts, "-"), true
}

// resolvedLocale is the locale a service uses for the requested list: the
// first that the data (or, when anyData, x/text) supports, without its
// Unicode extensions, and the data's locale that serves it.
type resolvedLocale struct {
	tag  language.Tag
	name string     // what resolvedOptions().locale says
	dat  *localeDat // the table data
	ext  map[string]string
}

func resolveLocale(list []string) (*resolvedLocale, error) {
	loadIntl()
	canon, err := canonicalLocales(list)
	if err != nil {
		return nil, err
	}
	for _, c := range canon {
		t, err := language.Parse(c)
		if err != nil {
			continue
		}
		ext := map[string]string{}
		if u, ok := t.Extension('u'); ok {
			parts := strings.Split(u.String(), "-")[1:]
			for i := 0; i+1 < len(parts); i += 2 {
				ext[parts[i]] = parts[i+1]
			}
		}
		base, _ := t.SetTypeForKey("", "")
		for k := range ext {
			base, _ = base.SetTypeForKey(k, "")
		}
		base, _ = language.Compose(base.Raw())
		_, idx, conf := intlMatcher.Match(base)
		if conf == language.No {
			continue
		}
		b, _ := base.Base()
		mb, _ := intlTags[idx].Base()
		if b != mb {
			continue
		}
		return &resolvedLocale{tag: base, name: base.String(), dat: localeFor(intlKeys[idx]), ext: ext}, nil
	}
	t := language.MustParse(DefaultLocale)
	return &resolvedLocale{tag: t, name: DefaultLocale, dat: localeFor("en"), ext: map[string]string{}}, nil
}

// supportedLocales is supportedLocalesOf: the requested locales the data
// serves.
func supportedLocales(list []string) ([]string, error) {
	loadIntl()
	canon, err := canonicalLocales(list)
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, c := range canon {
		t, err := language.Parse(c)
		if err != nil {
			continue
		}
		_, idx, conf := intlMatcher.Match(t)
		b, _ := t.Base()
		mb, _ := intlTags[idx].Base()
		if conf != language.No && b == mb {
			out = append(out, c)
		}
	}
	return out, nil
}

// intlRequest is what intl.js sends.
type intlRequest struct {
	Op       string            `json:"op"`
	Locales  []string          `json:"locales"`
	Options  map[string]any    `json:"options"`
	Resolved map[string]any    `json:"resolved"`
	Value    json.RawMessage   `json:"value"`
	Unit     string            `json:"unit"`
	A        string            `json:"a"`
	B        string            `json:"b"`
	List     []string          `json:"list"`
	Extra    map[string]string `json:"extra"`
}

// ordered is resolved options in the order V8 lists them.
type ordered [][2]any

func (o *ordered) add(k string, v any) { *o = append(*o, [2]any{k, v}) }

func (o ordered) get(k string) any {
	for _, kv := range o {
		if kv[0] == k {
			return kv[1]
		}
	}
	return nil
}

// resolved caches what the resolve operations answered, by request: the
// same locales and options resolve the same way, and a per-call realm
// resolves its formatters again in every program.
var resolved cache[string]

func intlCall(arg, zone string) (string, error) {
	if strings.HasPrefix(arg, `{"op":"`) && len(arg) < 4096 {
		op, _, _ := strings.Cut(arg[7:], `"`)
		if strings.HasSuffix(op, ".resolve") {
			return resolved.get(zone+"\x00"+arg, func() (string, error) { return intlAnswer(arg, zone) })
		}
	}
	return intlAnswer(arg, zone)
}

// intlAnswer answers one request; zone is the time zone of a
// DateTimeFormat whose options name none.
func intlAnswer(arg, zone string) (string, error) {
	var req intlRequest
	if err := json.Unmarshal([]byte(arg), &req); err != nil {
		return "", typeError("Intl: bad request")
	}
	var out any
	var err error
	switch req.Op {
	case "canonical":
		out, err = canonicalLocales(req.Locales)
	case "supported":
		out, err = supportedLocales(req.Locales)
	case "nf.resolve":
		out, err = numberResolve(req.Locales, req.Options)
	case "nf.format":
		out, err = numberFormat(req.Resolved, req.Value)
	case "pr.resolve":
		out, err = pluralResolve(req.Locales, req.Options)
	case "pr.select":
		out, err = pluralSelect(req.Resolved, req.Value)
	case "dtf.resolve":
		out, err = dateResolve(req.Locales, req.Options, req.Extra, zone)
	case "dtf.format":
		out, err = dateFormat(req.Resolved, req.Value)
	case "coll.resolve":
		out, err = collatorResolve(req.Locales, req.Options)
	case "coll.compare":
		out, err = collatorCompare(req.Resolved, req.A, req.B)
	case "lf.resolve":
		out, err = listResolve(req.Locales, req.Options)
	case "lf.format":
		out, err = listFormat(req.Resolved, req.List)
	case "dn.resolve":
		out, err = displayResolve(req.Locales, req.Options)
	case "dn.of":
		out, err = displayOf(req.Resolved, req.A)
	case "rtf.resolve":
		out, err = relativeResolve(req.Locales, req.Options)
	case "rtf.format":
		out, err = relativeFormat(req.Resolved, req.Value, req.Unit)
	default:
		return "", typeError("Intl: unknown operation %q", req.Op)
	}
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "", typeError("Intl: %v", err)
	}
	return string(b), nil
}

// Option reading, as ECMA-402's GetOption: the prelude sends primitive
// values (undefined is absent).

func optString(o map[string]any, key string, allowed []string, def string) (string, error) {
	v, ok := o[key]
	if !ok || v == nil {
		return def, nil
	}
	s, _ := v.(string)
	if b, isBool := v.(bool); isBool {
		s = "false"
		if b {
			s = "true"
		}
	}
	if f, isNum := v.(float64); isNum {
		s = jsNumber(f)
	}
	if allowed == nil {
		return s, nil
	}
	for _, a := range allowed {
		if a == s {
			return s, nil
		}
	}
	return "", rangeError("Value %s out of range for Intl options property %s", s, key)
}

func optBool(o map[string]any, key string) (bool, bool) {
	v, ok := o[key]
	if !ok || v == nil {
		return false, false
	}
	switch x := v.(type) {
	case bool:
		return x, true
	case string:
		return x != "", true
	case float64:
		return x != 0 && x == x, true
	}
	return true, true
}

func optNumber(o map[string]any, key string, lo, hi int, def int) (int, bool, error) {
	v, ok := o[key]
	if !ok || v == nil {
		return def, false, nil
	}
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case string:
		f = parseJSNumber(x)
	case bool:
		if x {
			f = 1
		}
	}
	if f != f || f < float64(lo) || f > float64(hi) {
		return 0, false, rangeError("%s value is out of range.", key)
	}
	return int(f), true, nil
}

func resolvedString(r map[string]any, k string) string {
	s, _ := r[k].(string)
	return s
}

func resolvedInt(r map[string]any, k string) (int, bool) {
	f, ok := r[k].(float64)
	return int(f), ok
}

// formatter caches: resolved options → the prepared formatter. Bounded:
// cleared when full.
type cache[T any] struct {
	mu sync.Mutex
	m  map[string]T
}

func (c *cache[T]) get(key string, make func() (T, error)) (T, error) {
	c.mu.Lock()
	v, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := make()
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= 512 {
		c.m = map[string]T{}
	}
	c.m[key] = v
	c.mu.Unlock()
	return v, nil
}

func keyOf(r map[string]any) string {
	b, _ := json.Marshal(r) // sorted keys
	return string(b)
}
