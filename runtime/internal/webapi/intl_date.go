package webapi

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // time zones from Go's own database, not the host's files
)

// Intl.DateTimeFormat: the options pick a pattern from the data (the
// patterns ICU's skeleton matcher chose for each combination of the
// fields, recorded by intlgen.mjs), filled with Go's calendar arithmetic
// in the time zone from Go's database.

// TimeZone returns the canonical name and the location of the time zone
// name: an IANA name from Go's database, an offset (±HH:MM) or one of
// UTC's aliases, as Intl.DateTimeFormat's timeZone option takes them; the
// error is Intl's RangeError.
func TimeZone(name string) (string, *time.Location, error) { return canonicalZone(name) }

var dateFields = []string{"weekday", "era", "year", "month", "day", "dayPeriod", "hour", "minute", "second", "fractionalSecondDigits", "timeZoneName"}

func canonicalZone(z string) (string, *time.Location, error) {
	switch strings.ToUpper(z) {
	case "UTC", "ETC/UTC", "GMT", "ETC/GMT", "ETC/UCT", "UCT", "ETC/ZULU", "ZULU", "ETC/UNIVERSAL", "UNIVERSAL", "ETC/GMT0", "GMT0", "ETC/GMT+0", "ETC/GMT-0", "GMT+0", "GMT-0", "ETC/GREENWICH", "GREENWICH":
		return "UTC", time.UTC, nil
	}
	if strings.ContainsAny(z, "\\.") && strings.Contains(z, "..") || strings.HasPrefix(z, "/") {
		return "", nil, rangeError("Invalid time zone specified: %s", z)
	}
	if len(z) > 1 && (z[0] == '+' || z[0] == '-') {
		// an offset time zone: ±HH:MM
		s := strings.ReplaceAll(z[1:], ":", "")
		if len(s) == 2 || len(s) == 4 {
			h, err1 := strconv.Atoi(s[:2])
			m := 0
			var err2 error
			if len(s) == 4 {
				m, err2 = strconv.Atoi(s[2:])
			}
			if err1 == nil && err2 == nil && h < 24 && m < 60 {
				off := (h*60 + m) * 60
				if z[0] == '-' {
					off = -off
				}
				name := z[:1] + s[:2] + ":" + s[2:] + strings.Repeat("00", (4-len(s))/2)
				return name, time.FixedZone(name, off), nil
			}
		}
		return "", nil, rangeError("Invalid time zone specified: %s", z)
	}
	l, err := time.LoadLocation(z)
	if err != nil || z == "" || z == "Local" {
		return "", nil, rangeError("Invalid time zone specified: %s", z)
	}
	return z, l, nil
}

func dateResolve(locales []string, o map[string]any, extra map[string]string, defaultZone string) (ordered, error) {
	loc, err := resolveLocale(locales)
	if err != nil {
		return nil, err
	}
	required, defaults := extra["required"], extra["defaults"]
	if required == "" {
		required, defaults = "any", "date"
	}
	var r ordered
	r.add("locale", loc.name)
	cal, _ := optString(o, "calendar", nil, "gregory")
	if cal != "gregory" && cal != "iso8601" {
		cal = "gregory"
	}
	r.add("calendar", "gregory")
	r.add("numberingSystem", "latn")
	hour12, hasH12 := optBool(o, "hour12")
	hourCycle, err := optString(o, "hourCycle", []string{"h11", "h12", "h23", "h24"}, "")
	if err != nil {
		return nil, err
	}
	tzName := defaultZone
	if v, ok := o["timeZone"]; ok && v != nil {
		s, _ := optString(o, "timeZone", nil, "")
		tzName = s
	}
	zone, _, err := canonicalZone(tzName)
	if err != nil {
		return nil, err
	}
	r.add("timeZone", zone)
	fields := map[string]string{}
	allowed := map[string][]string{
		"weekday": {"narrow", "short", "long"}, "era": {"narrow", "short", "long"},
		"year": {"2-digit", "numeric"}, "month": {"2-digit", "numeric", "narrow", "short", "long"},
		"day": {"2-digit", "numeric"}, "dayPeriod": {"narrow", "short", "long"},
		"hour": {"2-digit", "numeric"}, "minute": {"2-digit", "numeric"}, "second": {"2-digit", "numeric"},
		"timeZoneName": {"short", "long", "shortOffset", "longOffset", "shortGeneric", "longGeneric"},
	}
	for _, k := range dateFields {
		if k == "fractionalSecondDigits" {
			n, ok, err := optNumber(o, k, 1, 3, 0)
			if err != nil {
				return nil, err
			}
			if ok {
				fields[k] = strconv.Itoa(n)
			}
			continue
		}
		s, err := optString(o, k, allowed[k], "")
		if err != nil {
			return nil, err
		}
		if s != "" {
			fields[k] = s
		}
	}
	if _, err := optString(o, "formatMatcher", []string{"basic", "best fit"}, "best fit"); err != nil {
		return nil, err
	}
	dateStyle, err := optString(o, "dateStyle", []string{"full", "long", "medium", "short"}, "")
	if err != nil {
		return nil, err
	}
	timeStyle, err := optString(o, "timeStyle", []string{"full", "long", "medium", "short"}, "")
	if err != nil {
		return nil, err
	}
	if dateStyle != "" || timeStyle != "" {
		for _, k := range dateFields {
			if _, ok := fields[k]; ok {
				return nil, typeError("Can't set option %s when %s is used", k, map[bool]string{true: "dateStyle", false: "timeStyle"}[dateStyle != ""])
			}
		}
		if required == "date" && dateStyle == "" {
			return nil, typeError("Invalid option : timeStyle")
		}
		if required == "time" && timeStyle == "" {
			return nil, typeError("Invalid option : dateStyle")
		}
	} else {
		need := true
		if required == "date" || required == "any" {
			for _, k := range []string{"weekday", "year", "month", "day"} {
				if _, ok := fields[k]; ok {
					need = false
				}
			}
		}
		if required == "time" || required == "any" {
			for _, k := range []string{"dayPeriod", "hour", "minute", "second", "fractionalSecondDigits"} {
				if _, ok := fields[k]; ok {
					need = false
				}
			}
		}
		if need && (defaults == "date" || defaults == "all") {
			fields["year"], fields["month"], fields["day"] = "numeric", "numeric", "numeric"
		}
		if need && (defaults == "time" || defaults == "all") {
			fields["hour"], fields["minute"], fields["second"] = "numeric", "numeric", "numeric"
		}
	}
	// the hour cycle (ECMA-402 2023: hour12 picks h11/h12 or h23/h24 by
	// the locale's default, as V8 does: en-US with hour12 false is h24)
	_, hasHour := fields["hour"]
	if hasHour || timeStyle != "" {
		def := localeHourCycle(loc)
		hc := def
		if hourCycle != "" {
			hc = hourCycle
		}
		if hasH12 {
			short := def == "h11" || def == "h23"
			switch {
			case hour12 && short:
				hc = "h11"
			case hour12:
				hc = "h12"
			case short:
				hc = "h23"
			default:
				hc = "h24"
			}
		}
		r.add("hourCycle", hc)
		r.add("hour12", hc == "h11" || hc == "h12")
	}
	for _, k := range dateFields {
		if v, ok := fields[k]; ok {
			if k == "fractionalSecondDigits" {
				n, _ := strconv.Atoi(v)
				r.add(k, n)
				continue
			}
			r.add(k, v)
		}
	}
	if dateStyle != "" {
		r.add("dateStyle", dateStyle)
	}
	if timeStyle != "" {
		r.add("timeStyle", timeStyle)
	}
	if dateStyle == "" && timeStyle == "" {
		// V8 reports the widths of the pattern it chose
		m := map[string]any{}
		for _, kv := range r {
			m[kv[0].(string)] = kv[1]
		}
		// the requested fields pick the pattern, at every format call
		req := map[string]any{}
		for k, v := range fields {
			req[k] = v
		}
		r.add("_fields", req)
		m["_fields"] = req
		if f, err := newDateFormatter(m); err == nil {
			for i, kv := range r {
				k := kv[0].(string)
				if w := f.width(k); w != "" && (kv[1] == "numeric" || kv[1] == "2-digit") {
					r[i][1] = w
				}
			}
		}
	}
	return r, nil
}

// width is the width the pattern gives a numeric field: "2-digit",
// "numeric", or "" when the field is not numeric in it.
func (f *dateFormatter) width(field string) string {
	var one, two []string
	switch field {
	case "year":
		one, two = []string{"{y}"}, []string{"{yy}"}
	case "month":
		one, two = []string{"{M}"}, []string{"{MM}"}
	case "day":
		one, two = []string{"{d}"}, []string{"{dd}"}
	case "hour":
		one, two = []string{"{h}", "{H}", "{K}", "{k}"}, []string{"{hh}", "{HH}", "{KK}", "{kk}"}
	case "minute":
		one, two = []string{"{m}"}, []string{"{mm}"}
	case "second":
		one, two = []string{"{s}"}, []string{"{ss}"}
	}
	for _, t := range two {
		if strings.Contains(f.tmpl, t) {
			return "2-digit"
		}
	}
	for _, t := range one {
		if strings.Contains(f.tmpl, t) {
			return "numeric"
		}
	}
	return ""
}

// localeHourCycle is the locale's default: h12 where the short time
// pattern has a day period.
func localeHourCycle(loc *resolvedLocale) string {
	t := loc.dat.Date.Styles["|short"]
	switch {
	case strings.Contains(t, "{K"):
		return "h11"
	case strings.Contains(t, "{h"):
		return "h12"
	case strings.Contains(t, "{k"):
		return "h24"
	}
	return "h23"
}

type dateFormatter struct {
	loc    *resolvedLocale
	zone   *time.Location
	tmpl   string
	tzName string
	hc     string
}

var dateCache cache[*dateFormatter]

func newDateFormatter(r map[string]any) (*dateFormatter, error) {
	loc, err := resolveLocale([]string{resolvedString(r, "locale")})
	if err != nil {
		return nil, err
	}
	_, zone, err := canonicalZone(resolvedString(r, "timeZone"))
	if err != nil {
		return nil, err
	}
	f := &dateFormatter{loc: loc, zone: zone, tzName: resolvedString(r, "timeZone")}
	dd := loc.dat.Date
	f.hc = resolvedString(r, "hourCycle")
	ds, ts := resolvedString(r, "dateStyle"), resolvedString(r, "timeStyle")
	if ds != "" || ts != "" {
		f.tmpl = dd.Styles[ds+"|"+ts]
		if f.hc != "" && f.hc != localeHourCycle(loc) {
			f.tmpl = withHourCycle(f.tmpl, f.hc)
		}
		return f, nil
	}
	var dk, tk []string
	req, _ := r["_fields"].(map[string]any)
	if req == nil {
		req = r
	}
	for _, k := range []string{"weekday", "year", "month", "day"} {
		if v := resolvedString(req, k); v != "" {
			dk = append(dk, k+"="+v)
		}
	}
	h12, hasH12 := r["hour12"].(bool)
	for _, k := range []string{"hour", "minute", "second"} {
		if v := resolvedString(req, k); v != "" {
			tk = append(tk, k+"="+v)
		}
	}
	if resolvedString(r, "hour") != "" && hasH12 && h12 != (localeHourCycle(loc) == "h12" || localeHourCycle(loc) == "h11") {
		tk = append(tk, "hour12="+strconv.FormatBool(h12))
	}
	defer func() { f.tmpl = withHourCycle(f.tmpl, f.hc) }()
	dkey, tkey := strings.Join(dk, ","), strings.Join(tk, ",")
	tzStyle := resolvedString(r, "timeZoneName")
	var dt, tt string
	if dkey != "" {
		dt = dd.Date[dkey]
	}
	if tkey != "" {
		tt = dd.Time[tkey]
		if tzStyle != "" {
			if t2, ok := dd.Time[tkey+",timeZoneName=short"]; ok {
				tt = t2
			}
			if strings.HasPrefix(tzStyle, "long") && tzStyle != "longOffset" {
				if t2, ok := dd.Time[tkey+",timeZoneName=long"]; ok {
					tt = t2
				}
			}
		}
	} else if tzStyle != "" {
		tt = "{z}"
	}
	switch {
	case dkey != "" && (tkey != ""):
		if p, ok := dd.Pairs[dkey+"|"+tkey]; ok && tzStyle == "" {
			f.tmpl = p
		} else if g := dd.Glue[dkey]; g != nil {
			f.tmpl = dt + *g + tt
		} else {
			f.tmpl = dt + ", " + tt
		}
	case dkey != "" && tzStyle != "":
		f.tmpl = dt + ", {z}"
	case dkey != "":
		f.tmpl = dt
	default:
		f.tmpl = tt
	}
	if n, ok := resolvedInt(r, "fractionalSecondDigits"); ok {
		dec := loc.dat.Number.Decimal
		if strings.Contains(f.tmpl, "{ss}") {
			f.tmpl = strings.Replace(f.tmpl, "{ss}", "{ss}"+dec+"{S"+strconv.Itoa(n)+"}", 1)
		} else if f.tmpl == "" {
			f.tmpl = "{S" + strconv.Itoa(n) + "}"
		}
	}
	return f, nil
}

var hourToken = regexp.MustCompile(`\{(hh?|HH?|KK?|kk?)\}`)
var dayPeriodBefore = regexp.MustCompile(`[ \x{202f}\x{a0}]\{a#[0-9]+\}`)
var dayPeriodAfter = regexp.MustCompile(`\{a#[0-9]+\}[ \x{202f}\x{a0}]?`)

// withHourCycle rewrites a pattern's hour for a cycle (h11 K, h12 h, h23
// H, h24 k), keeping its width; a 24-hour cycle drops the day period.
func withHourCycle(t, hc string) string {
	letter := map[string]string{"h11": "K", "h12": "h", "h23": "H", "h24": "k"}[hc]
	if letter == "" {
		return t
	}
	t = hourToken.ReplaceAllStringFunc(t, func(m string) string {
		return "{" + strings.Repeat(letter, len(m)-2) + "}"
	})
	if hc == "h23" || hc == "h24" {
		t = dayPeriodBefore.ReplaceAllString(t, "")
		t = dayPeriodAfter.ReplaceAllString(t, "")
	}
	return t
}

func dateFormat(r map[string]any, raw json.RawMessage) ([]part, error) {
	var ms float64
	if err := json.Unmarshal(raw, &ms); err != nil {
		return nil, typeError("Intl.DateTimeFormat: bad value")
	}
	if math.IsNaN(ms) || math.Abs(ms) > 8.64e15 {
		return nil, rangeError("Invalid time value")
	}
	f, err := dateCache.get(keyOf(r), func() (*dateFormatter, error) { return newDateFormatter(r) })
	if err != nil {
		return nil, err
	}
	return f.format(time.UnixMilli(int64(ms)).In(f.zone), r), nil
}

func pad(n, w int) string {
	s := strconv.Itoa(n)
	for len(s) < w {
		s = "0" + s
	}
	return s
}

func (f *dateFormatter) name(id string, i int) string {
	n, err := strconv.Atoi(id)
	names := loadIntl().Names
	if err != nil || n < 0 || n >= len(names) || i < 0 || i >= len(names[n]) {
		return ""
	}
	return names[n][i]
}

func (f *dateFormatter) format(t time.Time, r map[string]any) []part {
	var out []part
	lit := func(s string) { out = appendLiteral(out, s) }
	tmpl := f.tmpl
	for i := 0; i < len(tmpl); {
		c := tmpl[i]
		if (c == '{' || c == '}') && i+1 < len(tmpl) && tmpl[i+1] == c {
			lit(string(c))
			i += 2
			continue
		}
		if c != '{' {
			j := strings.IndexByte(tmpl[i:], '{')
			k := strings.Index(tmpl[i:], "}}")
			if j < 0 {
				j = len(tmpl) - i
			}
			if k >= 0 && k < j {
				j = k
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
		kind, id, _ := strings.Cut(tok, "#")
		y := t.Year()
		switch kind {
		case "y":
			if y <= 0 {
				y = 1 - y
			}
			out = append(out, part{"year", strconv.Itoa(y)})
		case "yy":
			out = append(out, part{"year", pad(((y%100)+100)%100, 2)})
		case "M":
			if id != "" {
				out = append(out, part{"month", f.name(id, int(t.Month())-1)})
			} else {
				out = append(out, part{"month", strconv.Itoa(int(t.Month()))})
			}
		case "MM":
			out = append(out, part{"month", pad(int(t.Month()), 2)})
		case "d":
			out = append(out, part{"day", strconv.Itoa(t.Day())})
		case "dd":
			out = append(out, part{"day", pad(t.Day(), 2)})
		case "E":
			out = append(out, part{"weekday", f.name(id, int(t.Weekday()))})
		case "G":
			e := 1
			if y <= 0 {
				e = 0
			}
			out = append(out, part{"era", f.name(id, e)})
		case "h", "hh", "H", "HH", "K", "KK", "k", "kk":
			h := t.Hour()
			switch kind[0] {
			case 'h':
				h %= 12
				if h == 0 {
					h = 12
				}
			case 'K':
				h %= 12
			case 'k':
				if h == 0 {
					h = 24
				}
			}
			out = append(out, part{"hour", pad(h, len(kind))})
		case "m":
			out = append(out, part{"minute", strconv.Itoa(t.Minute())})
		case "mm":
			out = append(out, part{"minute", pad(t.Minute(), 2)})
		case "s":
			out = append(out, part{"second", strconv.Itoa(t.Second())})
		case "ss":
			out = append(out, part{"second", pad(t.Second(), 2)})
		case "S1", "S2", "S3":
			n := int(kind[1] - '0')
			ms := pad(t.Nanosecond()/1e6, 3)
			out = append(out, part{"fractionalSecond", ms[:n]})
		case "a":
			// by hour (flexible day periods), or AM/PM
			p := t.Hour()
			if n, err := strconv.Atoi(id); err == nil && n < len(loadIntl().Names) && len(loadIntl().Names[n]) == 2 {
				p /= 12
			}
			out = append(out, part{"dayPeriod", f.name(id, p)})
		case "z":
			out = append(out, part{"timeZoneName", f.zoneName(t, resolvedString(r, "timeZoneName"), resolvedString(r, "timeStyle"))})
		}
	}
	return out
}

func (f *dateFormatter) zoneName(t time.Time, style, timeStyle string) string {
	if style == "" {
		style = "short"
		if timeStyle == "full" {
			style = "long"
		}
	}
	dd := f.loc.dat.Date
	// The names were recorded in January ([0]) and July ([1]) of 2024
	// (intlgen.mjs): pick the one whose offset t has, so a southern zone's
	// summer (January) gets January's name.
	dst := 0
	if _, off := t.Zone(); off != janOffset(t) {
		dst = 1
	}
	if n, ok := dd.TZ[f.tzName]; ok {
		switch style {
		case "short", "shortGeneric":
			return n.Short[dst]
		case "long", "longGeneric":
			return n.Long[dst]
		}
	}
	_, off := t.Zone()
	long := style == "longOffset" || style == "long" || style == "longGeneric"
	g := dd.GMT[0]
	if long {
		g = dd.GMT[1]
	}
	if off == 0 {
		return g[0]
	}
	// the localized GMT format: the prefix before "+1" in g[1]
	prefix := strings.TrimSuffix(strings.TrimSuffix(g[1], "+1"), "+01:00")
	sign := "+"
	if off < 0 {
		sign = "-"
		off = -off
	}
	if strings.Contains(g[2], "\u2212") {
		if sign == "-" {
			sign = "\u2212"
		}
	}
	h, m := off/3600, off%3600/60
	if long {
		return prefix + sign + pad(h, 2) + ":" + pad(m, 2)
	}
	if m != 0 {
		return prefix + sign + strconv.Itoa(h) + ":" + pad(m, 2)
	}
	return prefix + sign + strconv.Itoa(h)
}

// janOffset is the offset of t's zone in the middle of January of t's year.
func janOffset(t time.Time) int {
	_, off := time.Date(t.Year(), time.January, 15, 12, 0, 0, 0, t.Location()).Zone()
	return off
}
