package runtime_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/codemode/codemode/runtime"
)

// tzProgram reads Date's local time and Intl's default zone: the hours and
// offsets of a summer and a winter instant, a local time in the spring-
// forward gap (read with the offset before the transition) and one in the
// fall-back overlap (the earlier instant), a local date string, the
// default formatter and its zone name.
const tzProgram = `const d = new Date(Date.UTC(2024, 6, 4, 12, 30));
const w = new Date(Date.UTC(2024, 0, 15, 3, 0));
const local = new Date(2024, 2, 10, 2, 30);
return [d.getHours(), d.getTimezoneOffset(), w.getHours(), w.getDate(), w.getTimezoneOffset(),
  local.toISOString(), new Date("2024-11-03T01:30:00").toISOString(), Date.parse("2024-01-01T00:00:00"),
  d.toLocaleString(), d.toLocaleTimeString("en-US", { timeZoneName: "short" }),
  new Intl.DateTimeFormat().resolvedOptions().timeZone,
  new Intl.DateTimeFormat("en-US", { timeZone: "UTC", hour: "numeric" }).format(d),
  new Date(2024, 0, 1).getTime()]`

// The configured time zone (runtime.Options.TimeZone, the config's
// codemode.timeZone) is Date's local time and Intl's default on both
// engines. The expected values are node 20's (V8) for the same program
// run with TZ set to the zone.
func TestTimeZone(t *testing.T) {
	cases := []struct{ zone, want string }{
		{"", `[12,0,3,15,0,"2024-03-10T02:30:00.000Z","2024-11-03T01:30:00.000Z",1704067200000,"7/4/2024, 12:30:00 PM","12:30:00 PM UTC","UTC","12 PM",1704067200000]`},
		{"America/New_York", `[8,240,22,14,300,"2024-03-10T07:30:00.000Z","2024-11-03T05:30:00.000Z",1704085200000,"7/4/2024, 8:30:00 AM","8:30:00 AM EDT","America/New_York","12 PM",1704085200000]`},
		{"Australia/Sydney", `[22,-600,14,15,-660,"2024-03-09T15:30:00.000Z","2024-11-02T14:30:00.000Z",1704027600000,"7/4/2024, 10:30:00 PM","10:30:00 PM GMT+10","Australia/Sydney","12 PM",1704027600000]`},
		// V8 (node 20, deno 2.9) answers resolvedOptions().timeZone with
		// ICU's canonical id, Asia/Calcutta; codemode keeps the name given,
		// as TC39's Time Zone Canonicalization proposal does.
		{"Asia/Kolkata", `[18,-330,8,15,-330,"2024-03-09T21:00:00.000Z","2024-11-02T20:00:00.000Z",1704047400000,"7/4/2024, 6:00:00 PM","6:00:00 PM GMT+5:30","Asia/Kolkata","12 PM",1704047400000]`},
		// V8 (deno 2.9): "6 PM GMT+5:30" and "+05:30"; node 20 refuses
		// offset zones.
		{"+05:30", `[18,-330,8,15,-330,"2024-03-09T21:00:00.000Z","2024-11-02T20:00:00.000Z",1704047400000,"7/4/2024, 6:00:00 PM","6:00:00 PM GMT+5:30","+05:30","12 PM",1704047400000]`},
	}
	for _, eng := range []string{runtime.EngineGoja, runtime.EngineWazero} {
		for _, c := range cases {
			rt, err := runtime.New(runtime.Options{Engine: eng, TimeZone: c.zone, PoolSize: -1, Limits: runtime.Limits{Timeout: 10 * time.Second}})
			if err != nil {
				t.Fatal(err)
			}
			o := rt.Run(context.Background(), runtime.Request{Code: tzProgram})
			rt.Close()
			if o.Err != nil || string(o.Value) != c.want {
				t.Errorf("%s in %q: got %s, %v\nwant %s", eng, c.zone, o.Value, o.Err, c.want)
			}
		}
		_, err := runtime.New(runtime.Options{Engine: eng, TimeZone: "Mars/Olympus_Mons"})
		if err == nil || !strings.Contains(err.Error(), `"Mars/Olympus_Mons" is not a time zone`) {
			t.Errorf("%s: an unknown zone: %v", eng, err)
		}
	}
}
