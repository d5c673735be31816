package webapi

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/currency"
	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Intl.NumberFormat: ECMA-402's options, rounding on the decimal digits of
// the value (a number's shortest round-trip digits, as ICU does, so
// 1.005 with two fraction digits is 1.01), then the locale's patterns.

// dec is a decimal: 0.d1d2d3… × 10^exp, digits without leading or
// trailing zeros (none for zero).
type dec struct {
	neg      bool
	digits   []byte
	exp      int
	nan, inf bool
}

func jsNumber(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func parseJSNumber(s string) float64 {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return math.NaN()
	}
	return f
}

// parseDec reads what intl.js sends: a number's String() ("-0" for
// negative zero), a BigInt's, or a string value (a StringNumericLiteral).
func parseDec(s string) dec {
	s = strings.TrimSpace(s)
	var d dec
	if strings.HasPrefix(s, "-") {
		d.neg = true
		s = s[1:]
	} else if strings.HasPrefix(s, "+") {
		s = s[1:]
	}
	switch s {
	case "Infinity":
		d.inf = true
		return d
	case "NaN", "":
		return dec{nan: true}
	}
	if len(s) > 2 && s[0] == '0' && strings.ContainsAny(s[1:2], "xXoObB") {
		if v, ok := new(bigInt).parse(s); ok {
			s = v
		} else {
			return dec{nan: true}
		}
	}
	mant, expPart, hasExp := strings.Cut(strings.ToLower(s), "e")
	e := 0
	if hasExp {
		n, err := strconv.Atoi(expPart)
		if err != nil {
			return dec{nan: true}
		}
		e = n
	}
	ip, fp, _ := strings.Cut(mant, ".")
	if ip == "" && fp == "" {
		return dec{nan: true}
	}
	for _, c := range ip + fp {
		if c < '0' || c > '9' {
			return dec{nan: true}
		}
	}
	all := []byte(ip + fp)
	d.exp = len(ip) + e
	// strip leading zeros
	i := 0
	for i < len(all) && all[i] == '0' {
		i++
		d.exp--
	}
	all = all[i:]
	j := len(all)
	for j > 0 && all[j-1] == '0' {
		j--
	}
	d.digits = all[:j]
	if len(d.digits) == 0 {
		d.exp = 0
	}
	return d
}

// bigInt reads 0x/0o/0b literals (strings only).
type bigInt struct{}

func (bigInt) parse(s string) (string, bool) {
	base := 16
	switch s[1] {
	case 'o', 'O':
		base = 8
	case 'b', 'B':
		base = 2
	}
	v, err := strconv.ParseUint(s[2:], base, 64)
	if err != nil {
		return "", false
	}
	return strconv.FormatUint(v, 10), true
}

func (d dec) isZero() bool { return !d.nan && !d.inf && len(d.digits) == 0 }

// round keeps n digits (n may be ≤ 0) under mode.
func (d dec) round(n int, mode string) dec {
	if d.nan || d.inf || n >= len(d.digits) {
		return d
	}
	var kept []byte
	var dropped []byte
	if n > 0 {
		kept = append([]byte(nil), d.digits[:n]...)
		dropped = d.digits[n:]
	} else {
		dropped = d.digits
	}
	nonzero := len(dropped) > 0
	// compare the dropped part with half a unit
	cmp := -1 // below
	if n >= 0 && len(dropped) > 0 {
		switch {
		case dropped[0] > '5':
			cmp = 1
		case dropped[0] == '5':
			cmp = 0
			if len(dropped) > 1 {
				cmp = 1
			}
		}
	}
	last := byte('0')
	if len(kept) > 0 {
		last = kept[len(kept)-1]
	}
	inc := false
	switch mode {
	case "ceil":
		inc = nonzero && !d.neg
	case "floor":
		inc = nonzero && d.neg
	case "expand":
		inc = nonzero
	case "trunc":
		inc = false
	case "halfCeil":
		inc = cmp > 0 || (cmp == 0 && !d.neg)
	case "halfFloor":
		inc = cmp > 0 || (cmp == 0 && d.neg)
	case "halfTrunc":
		inc = cmp > 0
	case "halfEven":
		inc = cmp > 0 || (cmp == 0 && (last-'0')%2 == 1)
	default: // halfExpand
		inc = cmp >= 0
	}
	r := dec{neg: d.neg, exp: d.exp}
	if n < 0 {
		// every digit dropped, and the unit is above the first digit
		if inc {
			r.digits = []byte{'1'}
			r.exp = d.exp - n + 1
		}
		return r.trim()
	}
	if inc {
		i := len(kept) - 1
		for i >= 0 {
			if kept[i] == '9' {
				kept[i] = '0'
				i--
				continue
			}
			kept[i]++
			break
		}
		if i < 0 {
			if n == 0 {
				kept = []byte{'1'}
				r.exp++
			} else {
				kept = append([]byte{'1'}, kept...)
				r.exp++
			}
		}
	}
	r.digits = kept
	return r.trim()
}

func (d dec) trim() dec {
	j := len(d.digits)
	for j > 0 && d.digits[j-1] == '0' {
		j--
	}
	d.digits = d.digits[:j]
	i := 0
	for i < len(d.digits) && d.digits[i] == '0' {
		i++
		d.exp--
	}
	d.digits = d.digits[i:]
	if len(d.digits) == 0 {
		d.exp = 0
	}
	return d
}

// roundFrac keeps frac fraction digits; roundSig keeps sig significant
// digits. Both return the magnitude of the last kept digit.
func (d dec) roundFrac(frac int, mode string) (dec, int) {
	return d.round(d.exp+frac, mode), -frac
}

func (d dec) roundSig(sig int, mode string) (dec, int) {
	if d.isZero() {
		return d, 1 - sig
	}
	return d.round(sig, mode), d.exp - sig
}

// numFormatter is a resolved NumberFormat.
type numFormatter struct {
	loc                                       *resolvedLocale
	style, currency, currencyDisplay, curSign string
	unit, unitDisplay, notation, compactDisp  string
	signDisplay, roundingMode, grouping       string
	trailingZero, priority                    string
	minInt, minFrac, maxFrac, minSig, maxSig  int
	hasSig, hasFrac                           bool
	cur                                       string // the currency's symbol, code or name placeholder
}

// currencyDigits is ISO 4217's minor unit (x/text's currency data).
func currencyDigits(code string) int {
	u, err := currency.ParseISO(code)
	if err != nil {
		return 2
	}
	scale, _ := currency.Standard.Rounding(u)
	return scale
}

var sanctionedUnits = map[string]bool{}

func init() {
	for _, u := range strings.Fields("acre bit byte celsius centimeter day degree fahrenheit fluid-ounce foot gallon gigabit gigabyte gram hectare hour inch kilobit kilobyte kilogram kilometer liter megabit megabyte meter microsecond mile mile-scandinavian milliliter millimeter millisecond minute month nanosecond ounce percent petabyte pound second stone terabit terabyte week yard year") {
		sanctionedUnits[u] = true
	}
}

func validUnit(u string) bool {
	if sanctionedUnits[u] {
		return true
	}
	num, den, ok := strings.Cut(u, "-per-")
	return ok && sanctionedUnits[num] && sanctionedUnits[den]
}

func numberResolve(locales []string, o map[string]any) (ordered, error) {
	loc, err := resolveLocale(locales)
	if err != nil {
		return nil, err
	}
	var r ordered
	r.add("locale", loc.name)
	r.add("numberingSystem", "latn")
	style, err := optString(o, "style", []string{"decimal", "percent", "currency", "unit"}, "decimal")
	if err != nil {
		return nil, err
	}
	cur, _ := optString(o, "currency", nil, "")
	if cur != "" {
		if len(cur) != 3 || strings.IndexFunc(cur, func(c rune) bool { return !isASCIIAlpha(c) }) >= 0 {
			return nil, rangeError("Invalid currency code : %s", cur)
		}
		cur = strings.ToUpper(cur)
	}
	curDisplay, err := optString(o, "currencyDisplay", []string{"code", "symbol", "narrowSymbol", "name"}, "symbol")
	if err != nil {
		return nil, err
	}
	curSign, err := optString(o, "currencySign", []string{"standard", "accounting"}, "standard")
	if err != nil {
		return nil, err
	}
	unit, _ := optString(o, "unit", nil, "")
	if unit != "" && !validUnit(unit) {
		return nil, rangeError("Invalid unit argument for Intl.NumberFormat() '%s'", unit)
	}
	unitDisplay, err := optString(o, "unitDisplay", []string{"short", "narrow", "long"}, "short")
	if err != nil {
		return nil, err
	}
	r.add("style", style)
	if style == "currency" {
		if cur == "" {
			return nil, typeError("Currency code is required with currency style.")
		}
		r.add("currency", cur)
		r.add("currencyDisplay", curDisplay)
		r.add("currencySign", curSign)
	}
	if style == "unit" {
		if unit == "" {
			return nil, typeError("Unit is required with unit style.")
		}
		r.add("unit", unit)
		r.add("unitDisplay", unitDisplay)
	}
	notation, err := optString(o, "notation", []string{"standard", "scientific", "engineering", "compact"}, "standard")
	if err != nil {
		return nil, err
	}
	// SetNumberFormatDigitOptions
	mnfdDefault, mxfdDefault := 0, 3
	if style == "currency" && notation == "standard" {
		d := currencyDigits(cur)
		mnfdDefault, mxfdDefault = d, d
	} else if style == "percent" {
		mnfdDefault, mxfdDefault = 0, 0
	}
	if notation == "compact" {
		mnfdDefault, mxfdDefault = 0, 0
	}
	mnid, _, err := optNumber(o, "minimumIntegerDigits", 1, 21, 1)
	if err != nil {
		return nil, err
	}
	mnfd, hasMnfd, err := optNumber(o, "minimumFractionDigits", 0, 100, -1)
	if err != nil {
		return nil, err
	}
	mxfd, hasMxfd, err := optNumber(o, "maximumFractionDigits", 0, 100, -1)
	if err != nil {
		return nil, err
	}
	mnsd, hasMnsd, err := optNumber(o, "minimumSignificantDigits", 1, 21, 1)
	if err != nil {
		return nil, err
	}
	mxsd, hasMxsd, err := optNumber(o, "maximumSignificantDigits", 1, 21, 21)
	if err != nil {
		return nil, err
	}
	roundingIncrement, _, err := optNumber(o, "roundingIncrement", 1, 5000, 1)
	if err != nil {
		return nil, err
	}
	if roundingIncrement != 1 {
		return nil, rangeError("roundingIncrement other than 1 is not supported in code_run programs")
	}
	roundingMode, err := optString(o, "roundingMode", []string{"ceil", "floor", "expand", "trunc", "halfCeil", "halfFloor", "halfExpand", "halfTrunc", "halfEven"}, "halfExpand")
	if err != nil {
		return nil, err
	}
	priority, err := optString(o, "roundingPriority", []string{"auto", "morePrecision", "lessPrecision"}, "auto")
	if err != nil {
		return nil, err
	}
	trailingZero, err := optString(o, "trailingZeroDisplay", []string{"auto", "stripIfInteger"}, "auto")
	if err != nil {
		return nil, err
	}
	needSd, needFd := true, true
	if priority == "auto" {
		needSd = hasMnsd || hasMxsd
		if needSd || (!hasMnfd && !hasMxfd && notation == "compact") {
			needFd = false
		}
	}
	if needSd {
		if !hasMnsd {
			mnsd = 1
		}
		if !hasMxsd {
			mxsd = 21
		}
		if mnsd > mxsd {
			return nil, rangeError("maximumSignificantDigits value is out of range.")
		}
	}
	if needFd {
		if hasMnfd || hasMxfd {
			if !hasMnfd {
				mnfd = min(mnfdDefault, mxfd)
			} else if !hasMxfd {
				mxfd = max(mxfdDefault, mnfd)
			} else if mnfd > mxfd {
				return nil, rangeError("maximumFractionDigits value is out of range.")
			}
		} else {
			mnfd, mxfd = mnfdDefault, mxfdDefault
		}
	}
	if !needSd && !needFd {
		// compact's default: morePrecision over 0 fraction digits and 2
		// significant digits
		mnfd, mxfd, mnsd, mxsd = 0, 0, 1, 2
		needSd, needFd = true, true
		priority = "morePrecision"
	}
	r.add("minimumIntegerDigits", mnid)
	if needSd {
		r.add("minimumSignificantDigits", mnsd)
		r.add("maximumSignificantDigits", mxsd)
	}
	if needFd {
		r.add("minimumFractionDigits", mnfd)
		r.add("maximumFractionDigits", mxfd)
	}
	compactDisplay, err := optString(o, "compactDisplay", []string{"short", "long"}, "short")
	if err != nil {
		return nil, err
	}
	defGrouping := "auto"
	if notation == "compact" {
		defGrouping = "min2"
	}
	grouping := defGrouping
	if v, ok := o["useGrouping"]; ok && v != nil {
		switch x := v.(type) {
		case bool:
			if x {
				grouping = "always"
			} else {
				grouping = "false"
			}
		case string:
			switch x {
			case "min2", "auto", "always":
				grouping = x
			case "true", "false":
				grouping = defGrouping
			case "":
				grouping = "false"
			default:
				return nil, rangeError("Value %s out of range for Intl.NumberFormat options property useGrouping", x)
			}
		case float64:
			if x == 0 || x != x {
				grouping = "false"
			} else {
				return nil, rangeError("Value %s out of range for Intl.NumberFormat options property useGrouping", jsNumber(x))
			}
		}
	}
	if grouping == "false" {
		r.add("useGrouping", false)
	} else {
		r.add("useGrouping", grouping)
	}
	r.add("notation", notation)
	if notation == "compact" {
		r.add("compactDisplay", compactDisplay)
	}
	signDisplay, err := optString(o, "signDisplay", []string{"auto", "never", "always", "exceptZero", "negative"}, "auto")
	if err != nil {
		return nil, err
	}
	r.add("signDisplay", signDisplay)
	r.add("roundingIncrement", 1)
	r.add("roundingMode", roundingMode)
	r.add("roundingPriority", priority)
	r.add("trailingZeroDisplay", trailingZero)
	return r, nil
}

var numCache cache[*numFormatter]

func newNumFormatter(r map[string]any) (*numFormatter, error) {
	loc, err := resolveLocale([]string{resolvedString(r, "locale")})
	if err != nil {
		return nil, err
	}
	f := &numFormatter{loc: loc}
	f.style = resolvedString(r, "style")
	f.currency = resolvedString(r, "currency")
	f.currencyDisplay = resolvedString(r, "currencyDisplay")
	f.curSign = resolvedString(r, "currencySign")
	f.unit = resolvedString(r, "unit")
	f.unitDisplay = resolvedString(r, "unitDisplay")
	f.notation = resolvedString(r, "notation")
	f.compactDisp = resolvedString(r, "compactDisplay")
	f.signDisplay = resolvedString(r, "signDisplay")
	f.roundingMode = resolvedString(r, "roundingMode")
	f.priority = resolvedString(r, "roundingPriority")
	f.trailingZero = resolvedString(r, "trailingZeroDisplay")
	f.grouping = "false"
	if g, ok := r["useGrouping"].(string); ok {
		f.grouping = g
	}
	f.minInt, _ = resolvedInt(r, "minimumIntegerDigits")
	f.minFrac, f.hasFrac = resolvedInt(r, "minimumFractionDigits")
	f.maxFrac, _ = resolvedInt(r, "maximumFractionDigits")
	f.minSig, f.hasSig = resolvedInt(r, "minimumSignificantDigits")
	f.maxSig, _ = resolvedInt(r, "maximumSignificantDigits")
	if f.style == "currency" {
		f.cur = f.currencySymbol()
	}
	return f, nil
}

func (f *numFormatter) currencySymbol() string {
	nd := f.loc.dat.Number
	c, ok := nd.Currencies[f.currency]
	switch f.currencyDisplay {
	case "code", "name":
		return f.currency
	case "narrowSymbol":
		if ok {
			return c.Narrow
		}
	default:
		if ok {
			return c.Symbol
		}
	}
	// x/text's symbol for currencies outside the table
	if u, err := currency.ParseISO(f.currency); err == nil {
		p := message.NewPrinter(f.loc.tag)
		var s string
		if f.currencyDisplay == "narrowSymbol" {
			s = p.Sprint(currency.NarrowSymbol(u))
		} else {
			s = p.Sprint(currency.Symbol(u))
		}
		if s != "" {
			return s
		}
	}
	return f.currency
}

type part [2]string

func numberFormat(r map[string]any, raw json.RawMessage) ([]part, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, typeError("Intl.NumberFormat: bad value")
	}
	f, err := numCache.get(keyOf(r), func() (*numFormatter, error) { return newNumFormatter(r) })
	if err != nil {
		return nil, err
	}
	return f.format(parseDec(s)), nil
}

// roundDigits applies the digit options; it returns the rounded value and
// the number of fraction digits to show.
func (f *numFormatter) roundDigits(d dec) (dec, int) {
	var sr, fr dec
	var sMag, fMag int
	if f.hasSig {
		sr, sMag = d.roundSig(f.maxSig, f.roundingMode)
	}
	if f.hasFrac {
		fr, fMag = d.roundFrac(f.maxFrac, f.roundingMode)
	}
	useSig := f.hasSig
	if f.hasSig && f.hasFrac {
		switch f.priority {
		case "morePrecision":
			useSig = sMag <= fMag
		case "lessPrecision":
			useSig = sMag > fMag
		default:
			useSig = true
		}
	}
	var out dec
	var fracShown int
	if useSig {
		out = sr
		exp := out.exp
		if out.isZero() {
			exp = 1
		}
		shown := max(len(out.digits), f.minSig)
		fracShown = max(0, shown-exp)
	} else {
		out = fr
		fracShown = max(f.minFrac, len(out.digits)-out.exp)
	}
	if f.trailingZero == "stripIfInteger" && len(out.digits) <= out.exp {
		fracShown = 0
	}
	return out, fracShown
}

// digitsParts renders a rounded value: integer (grouped), decimal,
// fraction.
func (f *numFormatter) digitsParts(d dec, frac int, grouping string) []part {
	nd := f.loc.dat.Number
	var ip strings.Builder
	if d.exp > 0 {
		for i := 0; i < d.exp; i++ {
			if i < len(d.digits) {
				ip.WriteByte(d.digits[i])
			} else {
				ip.WriteByte('0')
			}
		}
	}
	is := ip.String()
	for len(is) < f.minInt {
		is = "0" + is
	}
	if is == "" {
		is = "0"
	}
	var out []part
	minGroup := nd.MinGroup
	switch grouping {
	case "always":
		minGroup = 1
	case "min2":
		minGroup = 2
	}
	if grouping != "false" && len(is) >= nd.Primary+minGroup {
		var groups []string
		rest := is[:len(is)-nd.Primary]
		last := is[len(is)-nd.Primary:]
		for len(rest) > nd.Secondary {
			groups = append([]string{rest[len(rest)-nd.Secondary:]}, groups...)
			rest = rest[:len(rest)-nd.Secondary]
		}
		groups = append([]string{rest}, groups...)
		groups = append(groups, last)
		for i, g := range groups {
			if i > 0 {
				out = append(out, part{"group", nd.Group})
			}
			out = append(out, part{"integer", g})
		}
	} else {
		out = append(out, part{"integer", is})
	}
	if frac > 0 {
		var fp strings.Builder
		for i := 0; i < frac; i++ {
			k := d.exp + i
			if k >= 0 && k < len(d.digits) {
				fp.WriteByte(d.digits[k])
			} else {
				fp.WriteByte('0')
			}
		}
		out = append(out, part{"decimal", nd.Decimal}, part{"fraction", fp.String()})
	}
	return out
}

// operands gives the plural operands of a rendered number.
func pluralOf(tag language.Tag, parts []part, ordinal bool) string {
	var ip, fp string
	for _, p := range parts {
		switch p[0] {
		case "integer":
			ip += p[1]
		case "fraction":
			fp += p[1]
		}
	}
	return pluralCategory(tag, ip, fp, ordinal)
}

func pluralCategory(tag language.Tag, ip, fp string, ordinal bool) string {
	i := 0
	if len(ip) > 9 {
		ip = ip[len(ip)-9:] // the rules look at the last digits only
	}
	i, _ = strconv.Atoi(ip)
	v := len(fp)
	t := strings.TrimRight(fp, "0")
	w := len(t)
	if v > 9 {
		fp, t = fp[:9], t[:min(len(t), 9)]
		v = 9
	}
	fv, _ := strconv.Atoi("0" + fp)
	tv, _ := strconv.Atoi("0" + t)
	rules := plural.Cardinal
	if ordinal {
		rules = plural.Ordinal
	}
	switch rules.MatchPlural(tag, i, v, w, fv, tv) {
	case plural.Zero:
		return "zero"
	case plural.One:
		return "one"
	case plural.Two:
		return "two"
	case plural.Few:
		return "few"
	case plural.Many:
		return "many"
	}
	return "other"
}

// expand fills a pattern from the data: {n} the number's parts, {c} the
// currency, {C:name} a currency name, {-} {+} {%} signs, {u:text} a unit,
// {k:text} a compact suffix; other text is literal ({{ and }} escape).
func (f *numFormatter) expand(tmpl string, num []part, sign string) []part {
	nd := f.loc.dat.Number
	var out []part
	lit := func(s string) { out = appendLiteral(out, s) }
	for i := 0; i < len(tmpl); {
		c := tmpl[i]
		if c == '{' && i+1 < len(tmpl) && tmpl[i+1] == '{' {
			lit("{")
			i += 2
			continue
		}
		if c == '}' && i+1 < len(tmpl) && tmpl[i+1] == '}' {
			lit("}")
			i += 2
			continue
		}
		if c != '{' {
			j := strings.IndexAny(tmpl[i:], "{}")
			if j < 0 {
				j = len(tmpl) - i
			}
			if j == 0 {
				j = 1
			}
			lit(tmpl[i : i+j])
			i += j
			continue
		}
		end := strings.IndexByte(tmpl[i:], '}')
		tok := tmpl[i+1 : i+end]
		i += end + 1
		switch {
		case tok == "n":
			out = append(out, num...)
		case tok == "c":
			// CLDR's currency spacing: a symbol that ends (or starts) in
			// a letter is kept apart from the digits by a no-break space
			before := i < len(tmpl) && strings.HasPrefix(tmpl[i:], "{n}")
			after := len(out) > 0 && (out[len(out)-1][0] == "integer" || out[len(out)-1][0] == "fraction")
			sym := []rune(f.cur)
			if after && len(sym) > 0 && unicode.IsLetter(sym[0]) {
				lit("\u00a0")
			}
			out = append(out, part{"currency", f.cur})
			if before && len(sym) > 0 && unicode.IsLetter(sym[len(sym)-1]) {
				lit("\u00a0")
			}
		case strings.HasPrefix(tok, "C:"):
			out = append(out, part{"currency", tok[2:]})
		case tok == "-", tok == "+":
			switch sign {
			case "-":
				out = append(out, part{"minusSign", nd.Minus})
			case "+":
				out = append(out, part{"plusSign", nd.Plus})
			}
		case tok == "%":
			out = append(out, part{"percentSign", nd.PercentSign})
		case strings.HasPrefix(tok, "u:"):
			out = append(out, part{"unit", tok[2:]})
		case strings.HasPrefix(tok, "k:"):
			out = append(out, part{"compact", tok[2:]})
		}
	}
	return out
}

// signed puts the sign into a positive pattern the way the locale's
// negative pattern does: the negative pattern is used with "+" for a plus.
func (f *numFormatter) pattern(pos, neg, sign string) string {
	if sign == "" {
		return pos
	}
	return neg
}

func (f *numFormatter) format(d dec) []part {
	nd := f.loc.dat.Number
	if f.style == "percent" && !d.nan && !d.inf && !d.isZero() {
		d.exp += 2
	}
	if f.style == "unit" && f.unit == "percent" {
		// the unit pattern carries the sign
	}
	var num []part
	var compactTmpl string
	var shown dec
	if d.nan {
		num = []part{{"nan", nd.NaN}}
	} else if d.inf {
		num = []part{{"infinity", nd.Inf}}
	} else {
		switch f.notation {
		case "scientific", "engineering":
			num, shown = f.scientific(d)
		case "compact":
			num, shown, compactTmpl = f.compact(d)
		default:
			r, frac := f.roundDigits(d)
			shown = r
			num = f.digitsParts(r, frac, f.grouping)
		}
	}
	// the sign, after rounding
	zero := d.nan || (!d.inf && shown.isZero())
	neg := d.neg && !d.nan
	sign := ""
	switch f.signDisplay {
	case "auto":
		if neg {
			sign = "-"
		}
	case "always":
		sign = "+"
		if neg {
			sign = "-"
		}
	case "exceptZero":
		if !zero {
			sign = "+"
			if neg {
				sign = "-"
			}
		}
	case "negative":
		if neg && !zero {
			sign = "-"
		}
	}
	if compactTmpl != "" {
		num = f.expand(compactTmpl, num, "")
	}
	cat := pluralOf(f.loc.tag, num, false)
	var tmpl string
	switch f.style {
	case "percent":
		tmpl = f.pattern(nd.Percent, nd.PercentNeg, sign)
	case "currency":
		switch {
		case f.currencyDisplay == "name":
			c, ok := nd.Currencies[f.currency]
			if ok {
				t := c.Name[cat]
				if t == "" {
					t = c.Name["other"]
				}
				tmpl = t
				if sign != "" {
					tmpl = strings.Replace(tmpl, "{n}", strings.Replace(nd.DecimalNeg, "{-}", "{"+sign+"}", 1), 1)
				}
				return f.expand(tmpl, num, sign)
			}
			tmpl = f.pattern(nd.CurrencyCode, nd.CurrencyCodeNeg, sign)
		case f.currencyDisplay == "code":
			tmpl = f.pattern(nd.CurrencyCode, nd.CurrencyCodeNeg, sign)
		case f.curSign == "accounting" && sign == "-":
			tmpl = nd.CurrencyAccNeg
		default:
			tmpl = f.pattern(nd.Currency, nd.CurrencyNeg, sign)
		}
	case "unit":
		u := nd.Units[f.unit]
		t := ""
		if u != nil {
			t = u[f.unitDisplay][cat]
			if t == "" {
				t = u[f.unitDisplay]["other"]
			}
		}
		if t == "" {
			t = "{n} {u:" + f.unit + "}"
		}
		tmpl = t
		if sign != "" {
			tmpl = strings.Replace(tmpl, "{n}", nd.DecimalNeg, 1)
		}
	default:
		tmpl = f.pattern("{n}", nd.DecimalNeg, sign)
	}
	return f.expand(tmpl, num, sign)
}

func (f *numFormatter) scientific(d dec) ([]part, dec) {
	nd := f.loc.dat.Number
	e := 0
	if !d.isZero() {
		e = d.exp - 1
		if f.notation == "engineering" {
			e = int(math.Floor(float64(e)/3)) * 3
		}
	}
	m := d
	m.exp -= e
	r, frac := f.roundDigits(m)
	if !r.isZero() && r.exp-1 > 0 && (f.notation == "scientific" || r.exp-1 >= 3) {
		// rounding carried into a new digit: 9.9995 → 10
		shift := 1
		if f.notation == "engineering" {
			shift = 3
		}
		e += shift
		m.exp -= shift
		r, frac = f.roundDigits(m)
	}
	out := f.digitsParts(r, frac, "false")
	out = append(out, part{"exponentSeparator", nd.Exp})
	if e < 0 {
		out = append(out, part{"exponentMinusSign", nd.Minus})
		e = -e
	}
	out = append(out, part{"exponentInteger", strconv.Itoa(e)})
	return out, r
}

func (f *numFormatter) compact(d dec) ([]part, dec, string) {
	nd := f.loc.dat.Number
	disp := f.compactDisp
	if disp == "" {
		disp = "short"
	}
	table := nd.Compact[disp]
	mag := 0
	if !d.isZero() {
		mag = d.exp - 1
	}
	for tries := 0; tries < 2; tries++ {
		m := min(max(mag, 0), 15)
		entry := table[strconv.Itoa(m)]
		ce, ok := entry["other"]
		if !ok {
			for _, v := range entry {
				ce = v
				break
			}
		}
		scale := 0
		tmpl := ""
		if strings.Contains(ce.T, "{k:") {
			scale = mag - ce.Z + 1
			if mag > 15 {
				scale = 15 - ce.Z + 1
			}
		}
		s := d
		if !s.isZero() {
			s.exp -= scale
		}
		r, frac := f.roundDigits(s)
		if tries == 0 && !r.isZero() && r.exp+scale-1 > mag {
			mag++
			continue
		}
		num := f.digitsParts(r, frac, f.grouping)
		if scale > 0 || strings.Contains(ce.T, "{k:") {
			cat := pluralOf(f.loc.tag, num, false)
			if c, ok := entry["=1"]; ok && len(num) == 1 && num[0][1] == "1" {
				cat = "=1" // CLDR's explicit form for exactly one ("mille")
				tmpl = c.T
			} else if c, ok := entry[cat]; ok {
				tmpl = c.T
			} else {
				tmpl = ce.T
			}
		}
		return num, r, tmpl
	}
	return nil, d, ""
}

var _ = fmt.Sprint
