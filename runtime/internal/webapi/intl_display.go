package webapi

import (
	"regexp"
	"strings"
)

// Intl.DisplayNames: the names ICU gives languages, regions, scripts,
// currencies, calendars and date-time fields in the table's locales,
// recorded by intlgen.mjs (display), composed as ICU composes them: a
// language tag's dialect name when the table has one for exactly its
// language, script and region ("en-GB": "British English"), else the
// language's name with its script, region and variants in the locale's
// pattern ("English (Latin, United Kingdom)").

type displayDat struct {
	Names     map[string]map[string]string `json:"names"`
	Short     map[string]map[string]string `json:"short"`
	Narrow    map[string]map[string]string `json:"narrow"`
	Dialect   map[string]map[string]string `json:"dialect"`
	Pattern   string                       `json:"pattern"`
	Separator string                       `json:"separator"`
}

var displayTypes = []string{"language", "region", "script", "currency", "calendar", "dateTimeField"}

func displayResolve(locales []string, o map[string]any) (ordered, error) {
	loc, err := resolveLocale(locales)
	if err != nil {
		return nil, err
	}
	style, err := optString(o, "style", []string{"narrow", "short", "long"}, "long")
	if err != nil {
		return nil, err
	}
	typ, err := optString(o, "type", displayTypes, "")
	if err != nil {
		return nil, err
	}
	if typ == "" {
		return nil, typeError("Intl.DisplayNames: the type option is required")
	}
	fallback, err := optString(o, "fallback", []string{"code", "none"}, "code")
	if err != nil {
		return nil, err
	}
	ld, err := optString(o, "languageDisplay", []string{"dialect", "standard"}, "dialect")
	if err != nil {
		return nil, err
	}
	var r ordered
	r.add("locale", loc.name)
	r.add("style", style)
	r.add("type", typ)
	r.add("fallback", fallback)
	if typ == "language" {
		r.add("languageDisplay", ld)
	}
	return r, nil
}

var (
	displayRegion   = regexp.MustCompile(`^(?:[A-Za-z]{2}|[0-9]{3})$`)
	displayScript   = regexp.MustCompile(`^[A-Za-z]{4}$`)
	displayCurrency = regexp.MustCompile(`^[A-Za-z]{3}$`)
	displayCalendar = regexp.MustCompile(`^[0-9A-Za-z]{3,8}(?:-[0-9A-Za-z]{3,8})*$`)
	// unicode_language_id: language, script, region, variants
	displayLanguage = regexp.MustCompile(`^(?i:([a-z]{2,3}|[a-z]{5,8})(?:-([a-z]{4}))?(?:-([a-z]{2}|[0-9]{3}))?((?:-(?:[a-z0-9]{5,8}|[0-9][a-z0-9]{3}))*))$`)
)

// displayOf is DisplayNames.prototype.of: the name, or the canonical code
// (fallback "code"), or nil (fallback "none").
func displayOf(r map[string]any, code string) (any, error) {
	loc, err := resolveLocale([]string{resolvedString(r, "locale")})
	if err != nil {
		return nil, err
	}
	d := loc.dat.Display
	style, typ := resolvedString(r, "style"), resolvedString(r, "type")
	name := func(t, c string) (string, bool) {
		if style == "narrow" {
			if v, ok := d.Narrow[t][c]; ok {
				return v, true
			}
		}
		if style != "long" {
			if v, ok := d.Short[t][c]; ok {
				return v, true
			}
		}
		v, ok := d.Names[t][c]
		return v, ok
	}
	bad := func() (any, error) { return nil, rangeError("invalid_argument") }
	var canon string
	var out string
	found := false
	switch typ {
	case "language":
		m := displayLanguage.FindStringSubmatch(code)
		if m == nil || strings.EqualFold(m[1], "root") {
			return bad()
		}
		lang, script, region, variants := strings.ToLower(m[1]), m[2], strings.ToUpper(m[3]), strings.ToLower(m[4])
		if script != "" {
			script = strings.ToUpper(script[:1]) + strings.ToLower(script[1:])
		}
		key := lang
		if script != "" {
			key += "-" + script
		}
		if region != "" {
			key += "-" + region
		}
		canon = key + variants
		var extras []string
		if v, ok := d.Dialect[style][key]; ok && resolvedString(r, "languageDisplay") == "dialect" {
			out, found = v, true
		} else if v, ok := name("language", lang); ok || resolvedString(r, "fallback") == "code" && (script != "" || region != "") {
			// a language without a name keeps its code in the pattern, as ICU does
			if !ok {
				v = lang
			}
			out, found = v, true
			if script != "" {
				s, ok := name("script", script)
				if !ok {
					s = script
				}
				extras = append(extras, s)
			}
			if region != "" {
				s, ok := name("region", region)
				if !ok {
					s = region
				}
				extras = append(extras, s)
			}
		}
		if found {
			for _, v := range strings.Split(strings.TrimPrefix(variants, "-"), "-") {
				if v != "" {
					extras = append(extras, strings.ToUpper(v))
				}
			}
			if len(extras) > 0 {
				out = strings.Replace(strings.Replace(d.Pattern, "{0}", out, 1), "{1}", strings.Join(extras, d.Separator), 1)
			}
		}
	case "region":
		if !displayRegion.MatchString(code) {
			return bad()
		}
		canon = strings.ToUpper(code)
		out, found = name("region", canon)
	case "script":
		if !displayScript.MatchString(code) {
			return bad()
		}
		canon = strings.ToUpper(code[:1]) + strings.ToLower(code[1:])
		out, found = name("script", canon)
	case "currency":
		if !displayCurrency.MatchString(code) {
			return bad()
		}
		canon = strings.ToUpper(code)
		out, found = name("currency", canon)
	case "calendar":
		if !displayCalendar.MatchString(code) {
			return bad()
		}
		canon = strings.ToLower(code)
		if canon == "gregorian" {
			canon = "gregory"
		}
		out, found = name("calendar", canon)
	case "dateTimeField":
		out, found = name("dateTimeField", code)
		if !found {
			return bad()
		}
	default:
		return nil, typeError("Intl.DisplayNames: bad type")
	}
	if found {
		return out, nil
	}
	if resolvedString(r, "fallback") == "none" {
		return nil, nil
	}
	return canon, nil
}
