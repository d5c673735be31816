package goja

// codemode patch: Unicode property escapes (jsparse/unicodeprops.go) and
// the u flag's lone braces (jsparse/regexp.go, scanBrace),
// against V8's answers (Node 20.20.2, Unicode 17.0): each case is
// [pattern, flags, input] → [index, match], null, or the error (its name,
// and V8's message for an unknown property).

import (
	"encoding/json"
	"testing"
)

var unicodePropertyCases = `[["\\p{Lu}+","u","abcDÉF1"],
["\\p{Script=Greek}","u","xα"],
["\\p{sc=Grek}+","u","xαβ"],
["\\p{scx=Grek}+","u","x͂α"],
["\\p{Script_Extensions=Devanagari}+","u","x॑।क"],
["\\p{L}+","u","12日本語ab!"],
["\\P{L}+","u","ab12!é"],
["\\p{Letter}+","u","1Ωa"],
["\\p{gc=Nd}+","u","a٣4"],
["\\p{General_Category=Decimal_Number}+","u","a٣4"],
["\\p{digit}+","u","a٣4"],
["\\p{ASCII}+","u","éabc"],
["\\P{ASCII}+","u","abcéü"],
["\\p{Any}+","u","😀a"],
["\\p{Alphabetic}+","u","1Ⅻa"],
["\\p{Alpha}+","u","1Ⅻa"],
["\\p{White_Space}+","u","a   b"],
["\\p{space}+","u","a \tb"],
["\\p{Emoji}+","u","a😀👍b"],
["\\p{Emoji_Presentation}+","u","a#😀b"],
["\\p{Extended_Pictographic}+","u","a😀b"],
["[\\p{L}\\d]+","u","!ab12é-"],
["[^\\p{L}]+","u","ab12!é-"],
["[\\P{L}]+","u","ab12!é-"],
["[^\\P{L}]+","u","12é日!"],
["[\\p{Alphabetic}_]+","u","!a_b1"],
["[^\\p{Alphabetic}]+","u","a12!b"],
["[\\P{ASCII}x]+","u","aéxüb"],
["\\p{Lu}","ui","abc"],
["\\p{Uppercase}","ui","abc"],
["\\p{Lowercase}+","u","ABcdE"],
["\\p{Cased_Letter}+","u","1aB"],
["\\p{LC}+","u","1aB"],
["\\p{Cn}","u","a͸"],
["\\p{Unassigned}","u","a͸"],
["\\p{C}","u","a͸"],
["\\p{Other}","u","a\u0001"],
["\\p{ID_Start}\\p{ID_Continue}*","u","1abc_1"],
["\\p{Assigned}+","u","͸ab"],
["\\p{sc=Zyyy}+","u","a1!"],
["\\p{scx=Zyyy}+","u","a1!·"],
["\\p{sc=Unknown}","u","a͸"],
["(?<=\\p{Lu})\\p{Ll}+","u","aBcd"],
["(?<=\\p{Alphabetic})\\d+","u","1a23"],
["(\\p{L})\\1","u","abbc"],
["(?<![\\p{Lu}])x","u","Axbx"],
["\\p{Emoji}(?=\\p{L})","u","😀 😀a"],
["\\p{Lu}+","","p{Lu}}"],
["\\p{Lu}","g","p{Lu}"],
["\\P{Lu}","","P{Lu}"],
["\\p{Lu}+","gu","ABcDE"],
["\\p{Lu}+","y","ÉA"],
["\\p{Lu}+","yu","ÉA"],
["\\p{Regional_Indicator}{2}","u","x🇫🇷"],
["\\p{Math}+","u","a+<=b"],
["\\p{Dash}+","u","a-–b"],
["\\p{Hex}+","u","xyzABF0g"],
["\\p{foo}","u",""],
["\\p{lu}","u",""],
["\\p{letter}","u",""],
["\\p{Script=Lu}","u",""],
["\\p{Greek}","u",""],
["\\p{Script}","u",""],
["\\p{Lu","u",""],
["\\p","u",""],
["\\pL","u",""],
["[\\p{Foo}]","u",""],
["\\p{sc=Hrkt}","u",""],
["\\p{General_Category=Alphabetic}","u",""],
["\\p{Basic_Emoji}","u",""],
["\\p{sc=Garay}","u","𐵀"],
["\\p{Lu}\\\\p","u","A\\pB"],
["[\\p-z]+","","apqz"],
["[\\d-z]+","u",""],
["[a-\\p{L}]+","u",""],
["[\\p{Lu}-\\p{Ll}]","u",""],
["(?<=x)[\\p{L}-z]","u",""],
["(?<=x)[a-\\p{L}]","u",""],
["[-\\p{L}]+","u","1-a"],
["[\\p{L}-]+","u","1-a"],
["(?<=x)[\\p{L}-]+","u","x-a"],
["(?<=\\p{foo})","u",""],
["(?<=[\\p{foo}])","u",""],
["\\P{Any}","u","a"],
["[\\P{Any}]","u","a"],
["[^\\P{Any}]","u","a"],
["(?<=a)\\P{Any}","u","ab"],
["(?<=a)[\\P{Any}a]","u","aab"],
["a{2}","u","aaa"],
["a{2,}","u","aaa"],
["a{1,2}","u","aaa"],
["a{","","a{"],
["a{","u",""],
["a}","u",""],
["a}","","a}"],
["{","u",""],
["x{1,2","u",""],
["x{1,2","","x{1,2"],
["[{}]","u","}"],
["\\{\\}","u","{}"],
["(a{2})","u","aa"],
["(a{)","","a{"],
["(a{)","u",""],
["a{,2}","","a{,2}"],
["a{,2}","u",""],
["\\p{L}{2}","u","ab"],
["a{2}?","u","aaa"],
["(?:ab){2}","u","abab"],
["\\\\p{Script=Foo}","u",""],
["\\\\p{Lu}","","\\p{Lu}"]]`

var unicodePropertyWant = `[[3,"DÉF"],
[1,"α"],
[1,"αβ"],
[1,"͂α"],
[1,"॑।क"],
[2,"日本語ab"],
[2,"12!"],
[1,"Ωa"],
[1,"٣4"],
[1,"٣4"],
[1,"٣4"],
[1,"abc"],
[3,"éü"],
[0,"😀a"],
[1,"Ⅻa"],
[1,"Ⅻa"],
[1,"   "],
[1," \t"],
[1,"😀👍"],
[2,"😀"],
[1,"😀"],
[1,"ab12é"],
[2,"12!"],
[2,"12!"],
[2,"é日"],
[1,"a_b"],
[1,"12!"],
[1,"éxü"],
[0,"a"],
[0,"a"],
[2,"cd"],
[1,"aB"],
[1,"aB"],
[1,"͸"],
[1,"͸"],
[1,"͸"],
[1,"\u0001"],
[1,"abc_1"],
[1,"ab"],
[1,"1!"],
[1,"1!"],
[1,"͸"],
[2,"cd"],
[2,"23"],
[1,"bb"],
[3,"x"],
[3,"😀"],
[0,"p{Lu}}"],
[0,"p{Lu}"],
[0,"P{Lu}"],
[0,"AB"],
null,[0,"ÉA"],
[1,"🇫🇷"],
[1,"+<="],
[1,"-–"],
[3,"ABF0"],
"SyntaxError: Invalid regular expression: /\\p{foo}/u: Invalid property name",
"SyntaxError: Invalid regular expression: /\\p{lu}/u: Invalid property name",
"SyntaxError: Invalid regular expression: /\\p{letter}/u: Invalid property name",
"SyntaxError: Invalid regular expression: /\\p{Script=Lu}/u: Invalid property name",
"SyntaxError: Invalid regular expression: /\\p{Greek}/u: Invalid property name",
"SyntaxError: Invalid regular expression: /\\p{Script}/u: Invalid property name",
"SyntaxError: Invalid regular expression: /\\p{Lu/u: Invalid property name",
"SyntaxError: Invalid regular expression: /\\p/u: Invalid property name",
"SyntaxError: Invalid regular expression: /\\pL/u: Invalid property name",
"SyntaxError: Invalid regular expression: /[\\p{Foo}]/u: Invalid property name in character class",
"SyntaxError: Invalid regular expression: /\\p{sc=Hrkt}/u: Invalid property name",
"SyntaxError: Invalid regular expression: /\\p{General_Category=Alphabetic}/u: Invalid property name",
"SyntaxError: Invalid regular expression: /\\p{Basic_Emoji}/u: Invalid property name",
[0,"𐵀"],
[0,"A\\p"],
[1,"pqz"],
"SyntaxError",
"SyntaxError",
"SyntaxError",
"SyntaxError",
"SyntaxError",
[1,"-a"],
[1,"-a"],
[1,"-a"],
"SyntaxError: Invalid regular expression: /(?<=\\p{foo})/u: Invalid property name",
"SyntaxError: Invalid regular expression: /(?<=[\\p{foo}])/u: Invalid property name in character class",
null,null,[0,"a"],
null,[1,"a"],
[0,"aa"],
[0,"aaa"],
[0,"aa"],
[0,"a{"],
"SyntaxError",
"SyntaxError",
[0,"a}"],
"SyntaxError",
"SyntaxError",
[0,"x{1,2"],
[0,"}"],
[0,"{}"],
[0,"aa"],
[0,"a{"],
"SyntaxError",
[0,"a{,2}"],
"SyntaxError",
[0,"ab"],
[0,"aa"],
[0,"abab"],
"SyntaxError",
[0,"\\p{Lu}"]]`

func TestUnicodePropertyEscapes(t *testing.T) {
	var cases [][3]string
	var want []json.RawMessage
	if err := json.Unmarshal([]byte(unicodePropertyCases), &cases); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(unicodePropertyWant), &want); err != nil {
		t.Fatal(err)
	}
	r := New()
	run, err := r.RunString(`(function (src, flags, input) {
		try { const m = new RegExp(src, flags).exec(input); return JSON.stringify(m ? [m.index, m[0]] : null) }
		catch (e) { return JSON.stringify(/property name/.test(e.message) ? e.name + ': ' + e.message : e.name) }
	})`)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := AssertFunction(run)
	for i, c := range cases {
		got, err := f(nil, r.ToValue(c[0]), r.ToValue(c[1]), r.ToValue(c[2]))
		if err != nil {
			t.Fatalf("%q: %v", c, err)
		}
		var g, w any
		_ = json.Unmarshal([]byte(got.String()), &g)
		_ = json.Unmarshal(want[i], &w)
		gb, _ := json.Marshal(g)
		wb, _ := json.Marshal(w)
		if string(gb) != string(wb) {
			t.Errorf("/%s/%s on %q: got %s, V8 %s", c[0], c[1], c[2], gb, wb)
		}
	}
}

// BenchmarkUnicodePropertyCompile is the compile cost of a pattern naming
// a property: Go's own table (\p{L}), class ranges on Go's regexp
// (\p{Alphabetic}), and the same on regexp2 (a lookbehind sends it there).
func BenchmarkUnicodePropertyCompile(b *testing.B) {
	for _, src := range []string{`\p{L}`, `\p{Alphabetic}`, `[^\p{Alphabetic}\d]`, `(?<=a)\p{L}`, `(?<=a)\p{Alphabetic}`} {
		b.Run(src, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := compileRegexp(src, "u"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
