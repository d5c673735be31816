package webapi

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"sync"

	"unicode"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Intl.PluralRules, Intl.Collator, Intl.ListFormat, Intl.RelativeTimeFormat.

// ---- PluralRules (x/text's CLDR plural rules)

func pluralResolve(locales []string, o map[string]any) (ordered, error) {
	typ, err := optString(o, "type", []string{"cardinal", "ordinal"}, "cardinal")
	if err != nil {
		return nil, err
	}
	// the digit options, as a decimal NumberFormat's
	no := map[string]any{}
	for _, k := range []string{"minimumIntegerDigits", "minimumFractionDigits", "maximumFractionDigits", "minimumSignificantDigits", "maximumSignificantDigits", "roundingPriority", "roundingIncrement", "roundingMode", "trailingZeroDisplay"} {
		if v, ok := o[k]; ok {
			no[k] = v
		}
	}
	nr, err := numberResolve(locales, no)
	if err != nil {
		return nil, err
	}
	// x/text has the plural rules of every CLDR locale: the first
	// requested that parses, else the default
	name, tag := pluralLocale(locales)
	var r ordered
	r.add("locale", name)
	r.add("type", typ)
	for _, kv := range nr {
		switch kv[0] {
		case "minimumIntegerDigits", "minimumFractionDigits", "maximumFractionDigits", "minimumSignificantDigits", "maximumSignificantDigits":
			r.add(kv[0].(string), kv[1])
		}
	}
	// categories: which forms the rules produce on a sample
	seen := map[string]bool{}
	for _, s := range []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "20", "21", "22", "23", "100", "101", "102", "1000000", "0.5", "1.5", "2.5", "0.0", "1.0"} {
		ip, fp, _ := strings.Cut(s, ".")
		seen[pluralCategory(tag, ip, fp, typ == "ordinal")] = true
	}
	// V8 lists them in this order
	var cats []string
	for _, c := range []string{"few", "many", "one", "two", "zero", "other"} {
		if seen[c] {
			cats = append(cats, c)
		}
	}
	r.add("pluralCategories", cats)
	r.add("roundingIncrement", 1)
	r.add("roundingMode", nr.get("roundingMode"))
	r.add("roundingPriority", nr.get("roundingPriority"))
	r.add("trailingZeroDisplay", nr.get("trailingZeroDisplay"))
	return r, nil
}

func pluralSelect(r map[string]any, raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", typeError("Intl.PluralRules: bad value")
	}
	d := parseDec(s)
	if d.nan || d.inf {
		return "other", nil
	}
	nr := map[string]any{}
	for k, v := range r {
		nr[k] = v
	}
	nr["style"], nr["notation"], nr["signDisplay"], nr["useGrouping"] = "decimal", "standard", "auto", false
	f, err := numCache.get(keyOf(nr), func() (*numFormatter, error) { return newNumFormatter(nr) })
	if err != nil {
		return "", err
	}
	d.neg = false
	rounded, frac := f.roundDigits(d)
	parts := f.digitsParts(rounded, frac, "false")
	_, tag := pluralLocale([]string{resolvedString(r, "locale")})
	return pluralOf(tag, parts, resolvedString(r, "type") == "ordinal"), nil
}

func pluralLocale(locales []string) (string, language.Tag) {
	canon, _ := canonicalLocales(locales)
	for _, c := range canon {
		t, err := language.Parse(c)
		if err != nil {
			continue
		}
		base, _ := language.Compose(t.Raw())
		return base.String(), base
	}
	return DefaultLocale, language.MustParse(DefaultLocale)
}

// ---- Collator (x/text's collate, the CLDR root collation and tailorings)

func collatorResolve(locales []string, o map[string]any) (ordered, error) {
	usage, err := optString(o, "usage", []string{"sort", "search"}, "sort")
	if err != nil {
		return nil, err
	}
	numeric, hasNumeric := optBool(o, "numeric")
	caseFirst, err := optString(o, "caseFirst", []string{"upper", "lower", "false"}, "")
	if err != nil {
		return nil, err
	}
	sensitivity, err := optString(o, "sensitivity", []string{"base", "accent", "case", "variant"}, "variant")
	if err != nil {
		return nil, err
	}
	ignorePunct, _ := optBool(o, "ignorePunctuation")
	canon, err := canonicalLocales(locales)
	if err != nil {
		return nil, err
	}
	name := DefaultLocale
	var ext map[string]string
	if len(canon) > 0 {
		t := language.MustParse(canon[0])
		base, _ := language.Compose(t.Raw())
		name = base.String()
		ext = map[string]string{}
		if u, ok := t.Extension('u'); ok {
			parts := strings.Split(u.String(), "-")[1:]
			for i := 0; i+1 < len(parts); i += 2 {
				ext[parts[i]] = parts[i+1]
			}
		}
	}
	if !hasNumeric && ext["kn"] != "" {
		numeric = ext["kn"] == "true"
	}
	if caseFirst == "" {
		caseFirst = "false"
		if v := ext["kf"]; v == "upper" || v == "lower" {
			caseFirst = v
		}
	}
	var r ordered
	r.add("locale", name)
	r.add("usage", usage)
	r.add("sensitivity", sensitivity)
	r.add("ignorePunctuation", ignorePunct)
	r.add("collation", "default")
	r.add("numeric", numeric)
	r.add("caseFirst", caseFirst)
	return r, nil
}

type collator struct {
	mu        sync.Mutex
	c         *collate.Collator
	primary   *collate.Collator // sensitivity "case" and caseFirst: the base letters first
	caseLevel bool              // sensitivity "case": then case alone, accents removed
	upper     bool              // caseFirst "upper"
}

var stripMarks = transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)

var collCache cache[*collator]

func collatorCompare(r map[string]any, a, b string) (int, error) {
	c, err := collCache.get(keyOf(r), func() (*collator, error) {
		t, err := language.Parse(resolvedString(r, "locale"))
		if err != nil {
			t = language.MustParse(DefaultLocale)
		}
		var opts []collate.Option
		var common []collate.Option
		if r["numeric"] == true {
			common = append(common, collate.Numeric)
		}
		out := &collator{}
		switch resolvedString(r, "sensitivity") {
		case "base":
			opts = append(opts, collate.IgnoreCase, collate.IgnoreDiacritics, collate.IgnoreWidth)
		case "accent":
			opts = append(opts, collate.IgnoreCase, collate.IgnoreWidth)
		case "case":
			// x/text has no case level: compare base letters, then the
			// strings without their accents
			out.caseLevel = true
		}
		opts = append(opts, common...)
		ext := ""
		if r["ignorePunctuation"] == true {
			ext += "-ka-shifted"
		}
		// x/text has no caseFirst ("kf" is a TODO there): by hand
		out.upper = resolvedString(r, "caseFirst") == "upper"
		if ext != "" {
			if t2, err := language.Parse(t.String() + "-u" + ext); err == nil {
				opts = append([]collate.Option{collate.OptionsFromTag(t2)}, opts...)
			}
		}
		out.c = collate.New(t, opts...)
		if out.caseLevel || out.upper {
			out.primary = collate.New(t, append([]collate.Option{collate.IgnoreCase, collate.IgnoreWidth}, common...)...)
			if out.caseLevel {
				out.primary = collate.New(t, append([]collate.Option{collate.IgnoreCase, collate.IgnoreDiacritics, collate.IgnoreWidth}, common...)...)
			}
		}
		return out, nil
	})
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.primary != nil {
		if p := c.primary.CompareString(a, b); p != 0 {
			return p, nil
		}
		if c.caseLevel {
			a, _, _ = transform.String(stripMarks, a)
			b, _, _ = transform.String(stripMarks, b)
		}
		v := c.c.CompareString(a, b)
		if c.upper {
			v = -v
		}
		return v, nil
	}
	return c.c.CompareString(a, b), nil
}

// ---- ListFormat

func listResolve(locales []string, o map[string]any) (ordered, error) {
	loc, err := resolveLocale(locales)
	if err != nil {
		return nil, err
	}
	typ, err := optString(o, "type", []string{"conjunction", "disjunction", "unit"}, "conjunction")
	if err != nil {
		return nil, err
	}
	style, err := optString(o, "style", []string{"long", "short", "narrow"}, "long")
	if err != nil {
		return nil, err
	}
	var r ordered
	r.add("locale", loc.name)
	r.add("type", typ)
	r.add("style", style)
	return r, nil
}

func listFormat(r map[string]any, list []string) ([]part, error) {
	loc, err := resolveLocale([]string{resolvedString(r, "locale")})
	if err != nil {
		return nil, err
	}
	p := loc.dat.List[resolvedString(r, "type")+"-"+resolvedString(r, "style")]
	el := func(s string) []part { return []part{{"element", s}} }
	switch len(list) {
	case 0:
		return []part{}, nil
	case 1:
		return el(list[0]), nil
	case 2:
		if isSpanish(loc) {
			p.Pair = spanishConjunction(p.Pair, list[1])
		}
		return fill(p.Pair, el(list[0]), el(list[1])), nil
	}
	n := len(list)
	if isSpanish(loc) {
		p.End = spanishConjunction(p.End, list[n-1])
	}
	acc := fill(p.End, el(list[n-2]), el(list[n-1]))
	for i := n - 3; i >= 1; i-- {
		acc = fill(p.Middle, el(list[i]), acc)
	}
	return fill(p.Start, el(list[0]), acc), nil
}

// fill expands a pattern of {0} and {1}.
func fill(tmpl string, a, b []part) []part {
	var out []part
	lit := func(s string) { out = appendLiteral(out, s) }
	for tmpl != "" {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 || i+2 >= len(tmpl) || tmpl[i+2] != '}' {
			lit(tmpl)
			break
		}
		lit(tmpl[:i])
		if tmpl[i+1] == '0' {
			out = append(out, a...)
		} else {
			for _, p := range b {
				if p[0] == "literal" {
					lit(p[1])
				} else {
					out = append(out, p)
				}
			}
		}
		tmpl = tmpl[i+3:]
	}
	return out
}

// ---- RelativeTimeFormat

func relativeResolve(locales []string, o map[string]any) (ordered, error) {
	loc, err := resolveLocale(locales)
	if err != nil {
		return nil, err
	}
	style, err := optString(o, "style", []string{"long", "short", "narrow"}, "long")
	if err != nil {
		return nil, err
	}
	numeric, err := optString(o, "numeric", []string{"always", "auto"}, "always")
	if err != nil {
		return nil, err
	}
	var r ordered
	r.add("locale", loc.name)
	r.add("style", style)
	r.add("numeric", numeric)
	r.add("numberingSystem", "latn")
	return r, nil
}

var relUnits = map[string]string{
	"second": "second", "seconds": "second", "minute": "minute", "minutes": "minute", "hour": "hour", "hours": "hour",
	"day": "day", "days": "day", "week": "week", "weeks": "week", "month": "month", "months": "month",
	"quarter": "quarter", "quarters": "quarter", "year": "year", "years": "year",
}

func relativeFormat(r map[string]any, raw json.RawMessage, unit string) ([]part, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, typeError("Intl.RelativeTimeFormat: bad value")
	}
	u, ok := relUnits[unit]
	if !ok {
		return nil, rangeError("Invalid unit argument for format() '%s'", unit)
	}
	d := parseDec(s)
	if d.nan || d.inf {
		return nil, rangeError("Invalid number value")
	}
	loc, err := resolveLocale([]string{resolvedString(r, "locale")})
	if err != nil {
		return nil, err
	}
	rd := loc.dat.Relative[u+"-"+resolvedString(r, "style")]
	if resolvedString(r, "numeric") == "auto" {
		f := parseJSNumber(s)
		if f == math.Trunc(f) && !(f == 0 && d.neg) {
			if a, ok := rd.Auto[strconv.Itoa(int(f))]; ok {
				return []part{{"literal", a}}, nil
			}
		}
	}
	neg := d.neg
	d.neg = false
	nf, err := numCache.get("rtf:"+loc.name, func() (*numFormatter, error) {
		res, err := numberResolve([]string{loc.name}, map[string]any{})
		if err != nil {
			return nil, err
		}
		m := map[string]any{}
		b, _ := json.Marshal(res)
		var pairs [][2]any
		_ = json.Unmarshal(b, &pairs)
		for _, kv := range pairs {
			m[kv[0].(string)] = kv[1]
		}
		return newNumFormatter(m)
	})
	if err != nil {
		return nil, err
	}
	num := nf.format(d)
	cat := pluralOf(loc.tag, num, false)
	table := rd.Future
	if neg {
		table = rd.Past
	}
	t, ok := table[cat]
	if !ok {
		t = table["other"]
	}
	for i := range num {
		num[i] = part{num[i][0], num[i][1]}
	}
	out := nf.expand(t, num, "")
	return out, nil
}

func isSpanish(loc *resolvedLocale) bool {
	b, _ := loc.tag.Base()
	return b.String() == "es"
}

// spanishConjunction is CLDR's rule for Spanish lists (ICU applies it): "y"
// becomes "e" before an /i/ sound (i-, hi- but not hie-, hia-), "o" becomes
// "u" before an /o/ sound (o-, ho-, 8, 11).
func spanishConjunction(pattern, next string) string {
	w := strings.ToLower(next)
	switch {
	case strings.Contains(pattern, " y ") && (strings.HasPrefix(w, "i") || strings.HasPrefix(w, "hi") || strings.HasPrefix(w, "í") || strings.HasPrefix(w, "hí")) &&
		!strings.HasPrefix(w, "hia") && !strings.HasPrefix(w, "hie") && !strings.HasPrefix(w, "hio") && !strings.HasPrefix(w, "hiu"):
		return strings.Replace(pattern, " y ", " e ", 1)
	case strings.Contains(pattern, " o ") && (strings.HasPrefix(w, "o") || strings.HasPrefix(w, "ho") || strings.HasPrefix(w, "ó") || strings.HasPrefix(w, "8") || strings.HasPrefix(w, "11")):
		return strings.Replace(pattern, " o ", " u ", 1)
	}
	return pattern
}

// appendLiteral appends literal text to formatted parts, merging it into a
// literal part just before (Intl's formatToParts never has two in a row).
func appendLiteral(out []part, s string) []part {
	if s == "" {
		return out
	}
	if n := len(out); n > 0 && out[n-1][0] == "literal" {
		out[n-1][1] += s
		return out
	}
	return append(out, part{"literal", s})
}
