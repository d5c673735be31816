// web.js: the web-platform globals without I/O (the WinterTC Minimum
// Common API's subset that makes sense in a sandbox): URL,
// URLSearchParams, TextEncoder, TextDecoder, atob, btoa, structuredClone,
// crypto (randomUUID, getRandomValues, subtle.digest), performance.now,
// DOMException, Event, EventTarget, AbortController, AbortSignal.
//
// Nothing is built until a program needs it. Everything below lives in
// webRegister, which only runs when a program first needs a web global;
// each group (the classes that refer to each other) is then built on
// first touch, and becomes plain data properties of the global object.
// How a program "first needs" one is the engine's choice, made in its
// glue: a realm restored from a snapshot (wazero) builds them all at
// setup (webLazy, then webInstall of every name: free per call, the
// snapshot holds them); a realm built per call (goja) pays for every
// object the prelude makes, so it calls webInstall(names) before a script
// that names some of them (engine.WebGlobals), and defines nothing until
// then. webLazy alone (an accessor per global that builds its group on
// first touch) is for an engine that wants neither.
//
// What JavaScript cannot do (a WHATWG URL parser with IDNA, SHA digests,
// randomness, CLDR data) is the host's (webapi, through the glue's
// hostService); every argument is size-checked before the call.
var WEB_MAX = 32 * 1048576; // webapi.MaxArg
var webGroups = null; // global name → its group {names, build, done}, once registered
// webMaterialize(grp) builds a group and defines its globals (made by
// webRegister, with the other helpers only the groups use: each function
// costs every goja runtime ~400 bytes).
var webMaterialize = null;
// webLazy defines every web global as an accessor that builds its group.
function webLazy() {
  webRegister();
  keysOf(webGroups).forEach(function (name) {
    var grp = webGroups[name];
    defineProperty(g, name, {
      configurable: true, enumerable: false,
      get: function () { webMaterialize(grp); return g[name]; },
      set: function (v) { webMaterialize(grp); defineGlobal(name, v); }
    });
  });
  webLocaleMethods();
}
// webInstall builds the groups of the named globals ("locale" is the
// built-ins' locale methods), comma-separated.
function webInstall(names) {
  webRegister();
  var list = names.split(",");
  for (var i = 0; i < list.length; i++) {
    if (list[i] === "locale") webLocaleMethods();
    else if (webGroups[list[i]] !== undefined) webMaterialize(webGroups[list[i]]);
  }
}

// webLocaleMethods installs the built-ins' locale methods (intl.js).
var webLocaleMethods = null;

// webRegister registers the groups, once; it spans web.js and intl.js,
// so that both share its helpers and nothing of either is made before it
// runs.
function webRegister() {
if (webGroups !== null) return;
lateLoad();
webGroups = {};
function webGroup(names, build) {
  var grp = { names: names, build: build, done: false };
  for (var i = 0; i < names.length; i++) webGroups[names[i]] = grp;
}
webMaterialize = function (grp) {
  if (grp.done) return;
  grp.done = true;
  var vals = grp.vals = grp.build();
  for (var i = 0; i < grp.names.length; i++) defineGlobal(grp.names[i], vals[i]);
};
function domException(message, name) {
  var D = webValue("DOMException");
  return new D(message, name);
}
// webValue is a web global as built, whatever the program did to the
// global since (what one group takes from another).
function webValue(name) {
  var grp = webGroups[name];
  webMaterialize(grp);
  return grp.vals[grp.names.indexOf(name)];
}
var lazyGroup = webGroup;
// hostSized refuses, before any work, a string a host function would
// refuse anyway.
function hostSized(str, what) {
  if (typeof str === "string" && str.length > WEB_MAX) throw new RangeErrorCtor(what + ": the argument is over the " + (WEB_MAX / 1048576) + " MiB a host function takes");
  return str;
}
// host calls the host function op; errors come back as the JavaScript
// error they name.
function webHost(op, arg, what) {
  if (arg.length > WEB_MAX) throw new RangeErrorCtor(what + ": the argument is over the " + (WEB_MAX / 1048576) + " MiB a host function takes");
  tooBig(what, arg.length * 4);
  var r = hostService(op, arg);
  if (typeof r !== "string") throw new ErrorCtor(what + " is not available after the program ended");
  if (r.charCodeAt(0) === 61) return r.slice(1);
  var nl = r.indexOf("\n");
  throw webError(r.slice(1, nl), r.slice(nl + 1));
}
function webError(name, msg) {
  switch (name) {
    case "TypeError": return new TypeErrorCtor(msg);
    case "RangeError": return new RangeErrorCtor(msg);
    case "SyntaxError": return new SyntaxError(msg);
    case "Error": return new ErrorCtor(msg);
  }
  return domException(msg, name);
}
function brand(slots, o, what) {
  var s = isObject(o) ? slots.get(o) : undefined;
  if (s === undefined) throw new TypeErrorCtor("Illegal invocation: " + what);
  return s;
}
function hidden(obj, name, value) {
  defineProperty(obj, name, { value: value, writable: false, configurable: true, enumerable: false });
}
function webTag(C, name) {
  defineProperty(C.prototype, Symbol.toStringTag, { value: name, configurable: true });
}

// ---- bytes
var HEX = null;
function hexTable() {
  if (HEX === null) {
    HEX = [];
    for (var i = 0; i < 256; i++) HEX[i] = (i < 16 ? "0" : "") + i.toString(16);
  }
  return HEX;
}
function bytesToHex(u8) {
  var h = hexTable(), parts = [], chunk = [];
  for (var i = 0; i < u8.length; i++) {
    chunk.push(h[u8[i]]);
    if (chunk.length === 8192) { parts.push(chunk.join("")); chunk = []; }
  }
  parts.push(chunk.join(""));
  return parts.join("");
}
function hexToBytes(s) {
  var out = new Uint8Array(s.length / 2);
  for (var i = 0; i < out.length; i++) out[i] = parseInt(s.substr(2 * i, 2), 16);
  return out;
}
// bufferSource returns a Uint8Array view of a BufferSource, or throws.
function bufferSource(v, what) {
  var t = tag(v);
  if (t === "[object ArrayBuffer]" || t === "[object SharedArrayBuffer]") return new Uint8Array(v);
  if (ArrayBuffer.isView(v)) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  throw new TypeErrorCtor(what + ": the argument must be an ArrayBuffer or an ArrayBufferView");
}
// charsOf builds a string from code units in chunks (fromCharCode's
// argument count is bounded).
function charsOf(units, n) {
  var parts = [];
  for (var i = 0; i < n; i += 8192) parts.push(String.fromCharCode.apply(null, units.slice(i, Math.min(n, i + 8192))));
  return parts.join("");
}
// utf8Encode returns the UTF-8 bytes of s, lone surrogates as U+FFFD.
function utf8Length(s) {
  var n = 0;
  for (var i = 0; i < s.length; i++) {
    var c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) { n += 4; i++; }
    else n += 3;
  }
  return n;
}
function utf8Write(s, out, max) {
  // Writes as many whole code points as fit in max bytes; returns [read, written].
  var j = 0, i = 0;
  for (; i < s.length; i++) {
    var c = s.charCodeAt(i), cp = c, units = 1;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      cp = 0x10000 + ((c - 0xd800) << 10) + (s.charCodeAt(i + 1) - 0xdc00);
      units = 2;
    } else if (c >= 0xd800 && c <= 0xdfff) cp = 0xfffd;
    var need = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (j + need > max) break;
    if (need === 1) out[j++] = cp;
    else if (need === 2) { out[j++] = 0xc0 | cp >> 6; out[j++] = 0x80 | cp & 63; }
    else if (need === 3) { out[j++] = 0xe0 | cp >> 12; out[j++] = 0x80 | cp >> 6 & 63; out[j++] = 0x80 | cp & 63; }
    else { out[j++] = 0xf0 | cp >> 18; out[j++] = 0x80 | cp >> 12 & 63; out[j++] = 0x80 | cp >> 6 & 63; out[j++] = 0x80 | cp & 63; }
    i += units - 1;
  }
  return [i, j];
}
function utf8Encode(s, what) {
  tooBig(what, s.length * 3, true); // at most 3 bytes a UTF-16 unit, checked before counting
  var n = utf8Length(s);
  tooBig(what, n, true);
  var out = new Uint8Array(n);
  utf8Write(s, out, n);
  return out;
}
// utf8Decode decodes bytes[start:end] (the WHATWG UTF-8 decoder: each
// maximal invalid subpart is one U+FFFD, or an error when fatal). It
// returns [string, index of an incomplete tail when stream].
function utf8Decode(b, start, end, fatal, stream) {
  var units = [], n = 0, i = start;
  while (i < end) {
    var c = b[i], need = 0, cp = 0, lower = 0x80, upper = 0xbf;
    if (c < 0x80) { units[n++] = c; i++; continue; }
    if (c >= 0xc2 && c <= 0xdf) { need = 1; cp = c & 0x1f; }
    else if (c >= 0xe0 && c <= 0xef) { need = 2; cp = c & 0xf; if (c === 0xe0) lower = 0xa0; if (c === 0xed) upper = 0x9f; }
    else if (c >= 0xf0 && c <= 0xf4) { need = 3; cp = c & 7; if (c === 0xf0) lower = 0x90; if (c === 0xf4) upper = 0x8f; }
    else {
      if (fatal) throw new TypeErrorCtor("The encoded data was not valid for encoding utf-8");
      units[n++] = 0xfffd; i++; continue;
    }
    var k = 1, ok = true;
    for (; k <= need; k++) {
      if (i + k >= end) { ok = false; break; }
      var d = b[i + k];
      if (d < lower || d > upper) { ok = false; break; }
      lower = 0x80; upper = 0xbf;
      cp = cp << 6 | d & 0x3f;
    }
    if (!ok) {
      if (i + k >= end && stream) return [charsOf(units, n), i];
      if (fatal) throw new TypeErrorCtor("The encoded data was not valid for encoding utf-8");
      units[n++] = 0xfffd; i += k; continue;
    }
    if (cp >= 0x10000) { cp -= 0x10000; units[n++] = 0xd800 + (cp >> 10); units[n++] = 0xdc00 + (cp & 0x3ff); }
    else units[n++] = cp;
    i += need + 1;
  }
  return [charsOf(units, n), end];
}

lazyGroup(["TextEncoder", "TextDecoder", "atob", "btoa"], function () {
  var encSlots = new WeakMap(), decSlots = new WeakMap();
  class TextEncoder {
    constructor() { encSlots.set(this, true); }
    get encoding() { brand(encSlots, this, "TextEncoder"); return "utf-8"; }
    encode(input = "") {
      brand(encSlots, this, "TextEncoder");
      return utf8Encode(toStr(input), "TextEncoder.encode()");
    }
    encodeInto(source, destination) {
      brand(encSlots, this, "TextEncoder");
      if (tag(destination) !== "[object Uint8Array]") throw new TypeErrorCtor("TextEncoder.encodeInto: the destination must be a Uint8Array");
      var r = utf8Write(toStr(source), destination, destination.length);
      return { read: r[0], written: r[1] };
    }
  }
  webTag(TextEncoder, "TextEncoder");
  var LABELS = { "utf-8": "utf-8", "utf8": "utf-8", "unicode-1-1-utf-8": "utf-8", "unicode11utf8": "utf-8", "unicode20utf8": "utf-8", "x-unicode20utf8": "utf-8",
    "utf-16le": "utf-16le", "utf-16": "utf-16le", "ucs-2": "utf-16le", "unicode": "utf-16le", "csunicode": "utf-16le", "iso-10646-ucs-2": "utf-16le", "unicodefeff": "utf-16le",
    "utf-16be": "utf-16be", "unicodefffe": "utf-16be",
    "latin1": "windows-1252", "iso-8859-1": "windows-1252", "ascii": "windows-1252", "us-ascii": "windows-1252", "windows-1252": "windows-1252", "l1": "windows-1252", "cp1252": "windows-1252", "iso8859-1": "windows-1252", "x-cp1252": "windows-1252" };
  var W1252 = [0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
    0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178];
  class TextDecoder {
    constructor(label = "utf-8", options = undefined) {
      var enc = LABELS[toStr(label).trim().toLowerCase()];
      if (enc === undefined) throw new RangeErrorCtor("The \"" + toStr(label) + "\" encoding is not supported");
      var o = options === undefined || options === null ? {} : options;
      decSlots.set(this, { enc: enc, fatal: !!o.fatal, ignoreBOM: !!o.ignoreBOM, pending: null, bomSeen: false });
    }
    get encoding() { return brand(decSlots, this, "TextDecoder").enc; }
    get fatal() { return brand(decSlots, this, "TextDecoder").fatal; }
    get ignoreBOM() { return brand(decSlots, this, "TextDecoder").ignoreBOM; }
    decode(input = undefined, options = undefined) {
      var s = brand(decSlots, this, "TextDecoder");
      var stream = options !== undefined && options !== null && !!options.stream;
      var b = input === undefined ? new Uint8Array(0) : bufferSource(input, "TextDecoder.decode()");
      tooBig("TextDecoder.decode()", b.length * 4);
      if (s.pending !== null && s.pending.length > 0) {
        var joined = new Uint8Array(s.pending.length + b.length);
        joined.set(s.pending); joined.set(b, s.pending.length);
        b = joined;
      }
      s.pending = null;
      var start = 0, out, rest = b.length;
      if (s.enc === "utf-8") {
        if (!s.bomSeen && !s.ignoreBOM && b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) start = 3;
        if (!s.bomSeen && stream && b.length < 3 && b.length > 0 && b[0] === 0xef) { s.pending = b.slice(0); return ""; }
        var r = utf8Decode(b, start, b.length, s.fatal, stream);
        out = r[0]; rest = r[1];
      } else if (s.enc === "windows-1252") {
        var u = [];
        for (var i = 0; i < b.length; i++) u[i] = b[i] >= 0x80 && b[i] < 0xa0 ? W1252[b[i] - 0x80] : b[i];
        out = charsOf(u, b.length);
      } else {
        var be = s.enc === "utf-16be", units = [], n = 0, j = 0;
        if (!s.bomSeen && !s.ignoreBOM && b.length >= 2 && ((be && b[0] === 0xfe && b[1] === 0xff) || (!be && b[0] === 0xff && b[1] === 0xfe))) j = 2;
        for (; j + 1 < b.length; j += 2) units[n++] = be ? b[j] << 8 | b[j + 1] : b[j + 1] << 8 | b[j];
        rest = j;
        if (!stream && j < b.length) {
          if (s.fatal) throw new TypeErrorCtor("The encoded data was not valid for encoding " + s.enc);
          units[n++] = 0xfffd; rest = b.length;
        }
        out = charsOf(units, n);
        if (!stream) out = out.toWellFormed ? out.toWellFormed() : out;
      }
      if (rest < b.length) s.pending = b.slice(rest);
      s.bomSeen = stream && b.length > 0;
      return out;
    }
  }
  webTag(TextDecoder, "TextDecoder");
  var B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  function btoa(data) {
    if (arguments.length === 0) throw new TypeErrorCtor("The \"data\" argument must be specified");
    var s = toStr(data), out = [], chunk = [];
    tooBig("btoa()", s.length * 2);
    for (var i = 0; i < s.length; i++) if (s.charCodeAt(i) > 255) throw domException("Invalid character", "InvalidCharacterError");
    for (i = 0; i < s.length; i += 3) {
      var a = s.charCodeAt(i), b1 = i + 1 < s.length ? s.charCodeAt(i + 1) : -1, c = i + 2 < s.length ? s.charCodeAt(i + 2) : -1;
      chunk.push(B64[a >> 2] + B64[(a & 3) << 4 | (b1 < 0 ? 0 : b1 >> 4)] + (b1 < 0 ? "=" : B64[(b1 & 15) << 2 | (c < 0 ? 0 : c >> 6)]) + (c < 0 ? "=" : B64[c & 63]));
      if (chunk.length === 4096) { out.push(chunk.join("")); chunk = []; }
    }
    out.push(chunk.join(""));
    return out.join("");
  }
  var B64INV = null;
  function atob(data) {
    if (arguments.length === 0) throw new TypeErrorCtor("The \"data\" argument must be specified");
    var s = toStr(data);
    tooBig("atob()", s.length * 12); // the decoded units, a number each
    s = s.replace(/[\t\n\f\r ]/g, "");
    if (s.length % 4 === 0) s = s.replace(/==?$/, "");
    if (s.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(s)) throw domException("The string to be decoded is not correctly encoded.", "InvalidCharacterError");
    if (B64INV === null) { B64INV = {}; for (var k = 0; k < 64; k++) B64INV[B64[k]] = k; }
    var units = [], n = 0, buf = 0, bits = 0;
    for (var i = 0; i < s.length; i++) {
      buf = buf << 6 | B64INV[s[i]]; bits += 6;
      if (bits >= 8) { bits -= 8; units[n++] = buf >> bits & 255; }
    }
    return charsOf(units, n);
  }
  return [TextEncoder, TextDecoder, atob, btoa];
});

// ---- DOMException, Event, EventTarget, AbortController, AbortSignal
lazyGroup(["DOMException", "Event", "EventTarget", "AbortController", "AbortSignal"], function () {
  var CODES = { IndexSizeError: 1, HierarchyRequestError: 3, WrongDocumentError: 4, InvalidCharacterError: 5, NoModificationAllowedError: 7,
    NotFoundError: 8, NotSupportedError: 9, InvalidStateError: 11, SyntaxError: 12, InvalidModificationError: 13, NamespaceError: 14,
    InvalidAccessError: 15, TypeMismatchError: 17, SecurityError: 18, NetworkError: 19, AbortError: 20, URLMismatchError: 21,
    QuotaExceededError: 22, TimeoutError: 23, InvalidNodeTypeError: 24, DataCloneError: 25 };
  var exSlots = new WeakMap();
  class DOMException extends ErrorCtor {
    constructor(message = "", name = "Error") {
      super(toStr(message));
      exSlots.set(this, { name: toStr(name) });
      delete this.message;
      exSlots.get(this).message = toStr(message);
    }
    get name() { return brand(exSlots, this, "DOMException").name; }
    get message() { return brand(exSlots, this, "DOMException").message; }
    get code() { return CODES[brand(exSlots, this, "DOMException").name] || 0; }
  }
  webTag(DOMException, "DOMException");

  var evSlots = new WeakMap();
  class Event {
    constructor(type, init = undefined) {
      if (arguments.length === 0) throw new TypeErrorCtor("The \"type\" argument must be specified");
      var o = init === undefined || init === null ? {} : init;
      evSlots.set(this, { type: toStr(type), bubbles: !!o.bubbles, cancelable: !!o.cancelable, composed: !!o.composed,
        defaultPrevented: false, target: null, currentTarget: null, stop: false, timeStamp: 0 });
    }
    get type() { return brand(evSlots, this, "Event").type; }
    get bubbles() { return brand(evSlots, this, "Event").bubbles; }
    get cancelable() { return brand(evSlots, this, "Event").cancelable; }
    get composed() { return brand(evSlots, this, "Event").composed; }
    get defaultPrevented() { return brand(evSlots, this, "Event").defaultPrevented; }
    get target() { return brand(evSlots, this, "Event").target; }
    get currentTarget() { return brand(evSlots, this, "Event").currentTarget; }
    get timeStamp() { return brand(evSlots, this, "Event").timeStamp; }
    preventDefault() { var s = brand(evSlots, this, "Event"); if (s.cancelable) s.defaultPrevented = true; }
    stopPropagation() { brand(evSlots, this, "Event"); }
    stopImmediatePropagation() { brand(evSlots, this, "Event").stop = true; }
  }
  webTag(Event, "Event");

  var etSlots = new WeakMap();
  class EventTarget {
    constructor() { etSlots.set(this, { listeners: [] }); }
    addEventListener(type, listener, options = undefined) {
      var s = brand(etSlots, this, "EventTarget");
      if (listener === null || listener === undefined) return;
      var once = isObject(options) && !!options.once, t = toStr(type);
      for (var i = 0; i < s.listeners.length; i++) if (s.listeners[i].type === t && s.listeners[i].fn === listener) return;
      var entry = { type: t, fn: listener, once: once, removed: false };
      s.listeners.push(entry);
      if (isObject(options) && isObject(options.signal)) {
        var self = this;
        options.signal.addEventListener("abort", function () { self.removeEventListener(t, listener); });
      }
    }
    removeEventListener(type, listener, options = undefined) {
      var s = brand(etSlots, this, "EventTarget"), t = toStr(type);
      for (var i = 0; i < s.listeners.length; i++) {
        if (s.listeners[i].type === t && s.listeners[i].fn === listener) { s.listeners[i].removed = true; s.listeners.splice(i, 1); return; }
      }
    }
    dispatchEvent(event) {
      var s = brand(etSlots, this, "EventTarget"), es = brand(evSlots, event, "dispatchEvent: the argument is not an Event");
      es.target = this; es.currentTarget = this;
      var ls = s.listeners.slice();
      for (var i = 0; i < ls.length && !es.stop; i++) {
        var l = ls[i];
        if (l.type !== es.type || l.removed) continue;
        if (l.once) this.removeEventListener(l.type, l.fn);
        try {
          if (typeof l.fn === "function") ReflectApply(l.fn, this, [event]);
          else if (isObject(l.fn) && typeof l.fn.handleEvent === "function") l.fn.handleEvent(event);
        } catch (e) {
          g.queueMicrotask(function () { throw e; });
        }
      }
      es.currentTarget = null;
      return !es.defaultPrevented;
    }
  }
  webTag(EventTarget, "EventTarget");

  var sigSlots = new WeakMap(), making = false;
  function abortReason(reason) {
    return reason === undefined ? new DOMException("This operation was aborted", "AbortError") : reason;
  }
  function signalAbort(signal, reason) {
    var s = sigSlots.get(signal);
    if (s.aborted) return;
    s.aborted = true; s.reason = abortReason(reason);
    signal.dispatchEvent(new Event("abort"));
    var deps = s.dependents; s.dependents = [];
    for (var i = 0; i < deps.length; i++) signalAbort(deps[i], s.reason);
  }
  function newSignal() {
    making = true;
    try { return new AbortSignal(); } finally { making = false; }
  }
  class AbortSignal extends EventTarget {
    constructor() {
      if (!making) throw new TypeErrorCtor("Illegal constructor");
      super();
      sigSlots.set(this, { aborted: false, reason: undefined, onabort: null, dependents: [] });
    }
    get aborted() { return brand(sigSlots, this, "AbortSignal").aborted; }
    get reason() { return brand(sigSlots, this, "AbortSignal").reason; }
    get onabort() { return brand(sigSlots, this, "AbortSignal").onabort; }
    set onabort(f) {
      // an event handler: one listener, in the order it was first set
      var s = brand(sigSlots, this, "AbortSignal"), self = this;
      if (s.onabort === null && typeof f === "function" && !s.handlerAdded) {
        s.handlerAdded = true;
        this.addEventListener("abort", function (ev) { if (typeof s.onabort === "function") return ReflectApply(s.onabort, self, [ev]); });
      }
      s.onabort = typeof f === "function" ? f : null;
    }
    throwIfAborted() { var s = brand(sigSlots, this, "AbortSignal"); if (s.aborted) throw s.reason; }
    static abort(reason = undefined) {
      var sig = newSignal(), s = sigSlots.get(sig);
      s.aborted = true; s.reason = abortReason(reason);
      return sig;
    }
    static timeout(milliseconds) {
      if (typeof g.setTimeout !== "function") throw new ErrorCtor("AbortSignal.timeout() is not available in code_run programs: there are no timers");
      var sig = newSignal();
      g.setTimeout(function () { signalAbort(sig, new DOMException("The operation was aborted due to timeout", "TimeoutError")); }, milliseconds);
      return sig;
    }
    static any(signals) {
      var sig = newSignal(), s = sigSlots.get(sig), list = [];
      for (var x of signals) list.push(x);
      for (var i = 0; i < list.length; i++) {
        var o = brand(sigSlots, list[i], "AbortSignal.any: not an AbortSignal");
        if (o.aborted) { s.aborted = true; s.reason = o.reason; return sig; }
      }
      for (i = 0; i < list.length; i++) sigSlots.get(list[i]).dependents.push(sig);
      return sig;
    }
  }
  webTag(AbortSignal, "AbortSignal");
  var acSlots = new WeakMap();
  class AbortController {
    constructor() { acSlots.set(this, newSignal()); }
    get signal() { return brand(acSlots, this, "AbortController"); }
    abort(reason = undefined) { signalAbort(brand(acSlots, this, "AbortController"), reason); }
  }
  webTag(AbortController, "AbortController");
  return [DOMException, Event, EventTarget, AbortController, AbortSignal];
});

// ---- URL and URLSearchParams (WHATWG URL; the parser is webapi's)
lazyGroup(["URL", "URLSearchParams"], function () {
  var urlSlots = new WeakMap(), spSlots = new WeakMap(), parse = JSON.parse;
  function parseRecord(input, base) {
    hostSized(input, "URL"); hostSized(base, "URL");
    return parse(webHost("url", jsonStringify([input, base]), "URL"));
  }
  var enc = null;
  function formEncode(s) {
    var b = utf8Encode(s, "URLSearchParams"), out = [];
    var h = hexTable();
    for (var i = 0; i < b.length; i++) {
      var c = b[i];
      if (c === 0x20) out.push("+");
      else if ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2a || c === 0x2d || c === 0x2e || c === 0x5f) out.push(String.fromCharCode(c));
      else out.push("%" + h[c].toUpperCase());
    }
    return out.join("");
  }
  function pctDecode(s) {
    if (s.indexOf("%") < 0 && !/[^\x00-\x7f]/.test(s)) return s;
    var b = utf8Encode(s, "URLSearchParams"), out = new Uint8Array(b.length), n = 0;
    for (var i = 0; i < b.length; i++) {
      var c = b[i];
      if (c === 0x25 && i + 2 < b.length) {
        var h = parseInt(String.fromCharCode(b[i + 1], b[i + 2]), 16);
        if (/^[0-9a-fA-F]{2}$/.test(String.fromCharCode(b[i + 1], b[i + 2]))) { out[n++] = h; i += 2; continue; }
      }
      out[n++] = c;
    }
    return utf8Decode(out, 0, n, false, false)[0];
  }
  function parseForm(s) {
    var list = [];
    if (s === "") return list;
    var parts = s.split("&");
    for (var i = 0; i < parts.length; i++) {
      if (parts[i] === "") continue;
      var p = parts[i], eq = p.indexOf("="), name = eq < 0 ? p : p.slice(0, eq), value = eq < 0 ? "" : p.slice(eq + 1);
      list.push([pctDecode(name.replace(/\+/g, " ")), pctDecode(value.replace(/\+/g, " "))]);
    }
    return list;
  }
  function usv(v) { var s = hostSized(toStr(v), "URL"); return s.toWellFormed ? s.toWellFormed() : s; }
  function serializeForm(list) {
    var out = [];
    for (var i = 0; i < list.length; i++) out.push(formEncode(list[i][0]) + "=" + formEncode(list[i][1]));
    return out.join("&");
  }
  function spUpdate(s) {
    if (s.url === null) return;
    var q = serializeForm(s.list), u = urlSlots.get(s.url);
    u.r = parse(webHost("urlset", jsonStringify([u.r.href, "search", q === "" ? "" : "?" + q]), "URL"));
    if (q === "") {
      // An empty query is removed (the standard's "potentially strip
      // trailing spaces from an opaque path" aside).
    }
  }
  class URLSearchParams {
    constructor(init = "") {
      var list = [];
      if (isObject(init)) {
        var method = init[SymIter];
        if (method !== undefined && method !== null) {
          for (var pair of init) {
            var a = [];
            for (var x of pair) a.push(x);
            if (a.length !== 2) throw new TypeErrorCtor("Each query pair must be an iterable [name, value] tuple");
            list.push([usv(a[0]), usv(a[1])]);
          }
        } else {
          var ks = Reflect.ownKeys(init);
          for (var i = 0; i < ks.length; i++) {
            var d = getOwn(init, ks[i]);
            if (d !== undefined && d.enumerable && typeof ks[i] === "string") list.push([usv(ks[i]), usv(init[ks[i]])]);
          }
        }
      } else {
        var s = usv(init);
        if (s[0] === "?") s = s.slice(1);
        list = parseForm(s);
      }
      spSlots.set(this, { list: list, url: null });
    }
    get size() { return brand(spSlots, this, "URLSearchParams").list.length; }
    append(name, value) {
      if (arguments.length < 2) throw new TypeErrorCtor("The \"name\" and \"value\" arguments must be specified");
      var s = brand(spSlots, this, "URLSearchParams");
      s.list.push([usv(name), usv(value)]);
      spUpdate(s);
    }
    delete(name, value = undefined) {
      var s = brand(spSlots, this, "URLSearchParams"), n = usv(name), v = value === undefined ? undefined : usv(value);
      s.list = s.list.filter(function (p) { return !(p[0] === n && (v === undefined || p[1] === v)); });
      spUpdate(s);
    }
    get(name) {
      var s = brand(spSlots, this, "URLSearchParams"), n = usv(name);
      for (var i = 0; i < s.list.length; i++) if (s.list[i][0] === n) return s.list[i][1];
      return null;
    }
    getAll(name) {
      var s = brand(spSlots, this, "URLSearchParams"), n = usv(name), out = [];
      for (var i = 0; i < s.list.length; i++) if (s.list[i][0] === n) out.push(s.list[i][1]);
      return out;
    }
    has(name, value = undefined) {
      var s = brand(spSlots, this, "URLSearchParams"), n = usv(name), v = value === undefined ? undefined : usv(value);
      for (var i = 0; i < s.list.length; i++) if (s.list[i][0] === n && (v === undefined || s.list[i][1] === v)) return true;
      return false;
    }
    set(name, value) {
      var s = brand(spSlots, this, "URLSearchParams"), n = usv(name), v = usv(value), out = [], found = false;
      for (var i = 0; i < s.list.length; i++) {
        if (s.list[i][0] !== n) out.push(s.list[i]);
        else if (!found) { found = true; out.push([n, v]); }
      }
      if (!found) out.push([n, v]);
      s.list = out;
      spUpdate(s);
    }
    sort() {
      var s = brand(spSlots, this, "URLSearchParams");
      var idx = s.list.map(function (p, i) { return [p, i]; });
      idx.sort(function (a, b) { return a[0][0] < b[0][0] ? -1 : a[0][0] > b[0][0] ? 1 : a[1] - b[1]; });
      s.list = idx.map(function (x) { return x[0]; });
      spUpdate(s);
    }
    forEach(callback, thisArg = undefined) {
      var s = brand(spSlots, this, "URLSearchParams");
      if (typeof callback !== "function") throw new TypeErrorCtor("The \"callback\" argument must be a function");
      for (var i = 0; i < s.list.length; i++) ReflectApply(callback, thisArg, [s.list[i][1], s.list[i][0], this]);
    }
    *entries() { var s = brand(spSlots, this, "URLSearchParams"); for (var i = 0; i < s.list.length; i++) yield [s.list[i][0], s.list[i][1]]; }
    *keys() { var s = brand(spSlots, this, "URLSearchParams"); for (var i = 0; i < s.list.length; i++) yield s.list[i][0]; }
    *values() { var s = brand(spSlots, this, "URLSearchParams"); for (var i = 0; i < s.list.length; i++) yield s.list[i][1]; }
    toString() { return serializeForm(brand(spSlots, this, "URLSearchParams").list); }
  }
  defineProperty(URLSearchParams.prototype, SymIter, { value: URLSearchParams.prototype.entries, writable: true, configurable: true });
  webTag(URLSearchParams, "URLSearchParams");

  function setter(self, field, v) {
    var u = brand(urlSlots, self, "URL");
    u.r = parse(webHost("urlset", jsonStringify([u.r.href, field, usv(v)]), "URL"));
    if (u.sp !== null && (field === "href" || field === "search")) {
      spSlots.get(u.sp).list = parseForm(u.r.search.slice(1));
    }
  }
  function slot(self) { return brand(urlSlots, self, "URL").r; }
  class URL {
    constructor(url, base = undefined) {
      if (arguments.length === 0) throw new TypeErrorCtor("The \"url\" argument must be specified");
      urlSlots.set(this, { r: parseRecord(usv(url), base === undefined ? null : usv(base)), sp: null });
    }
    static canParse(url, base = undefined) {
      try { parseRecord(usv(url), base === undefined ? null : usv(base)); return true; } catch (e) { if (e instanceof TypeErrorCtor) return false; throw e; }
    }
    static parse(url, base = undefined) {
      try { return new URL(url, base); } catch (e) { if (e instanceof TypeErrorCtor) return null; throw e; }
    }
    get href() { return slot(this).href; }
    set href(v) { setter(this, "href", v); }
    get origin() { return slot(this).origin; }
    get protocol() { return slot(this).protocol; }
    set protocol(v) { setter(this, "protocol", v); }
    get username() { return slot(this).username; }
    set username(v) { setter(this, "username", v); }
    get password() { return slot(this).password; }
    set password(v) { setter(this, "password", v); }
    get host() { return slot(this).host; }
    set host(v) { setter(this, "host", v); }
    get hostname() { return slot(this).hostname; }
    set hostname(v) { setter(this, "hostname", v); }
    get port() { return slot(this).port; }
    set port(v) { setter(this, "port", v); }
    get pathname() { return slot(this).pathname; }
    set pathname(v) { setter(this, "pathname", v); }
    get search() { return slot(this).search; }
    set search(v) { setter(this, "search", v); }
    get searchParams() {
      var u = brand(urlSlots, this, "URL");
      if (u.sp === null) {
        u.sp = new URLSearchParams(u.r.search.slice(1));
        spSlots.get(u.sp).url = this;
      }
      return u.sp;
    }
    get hash() { return slot(this).hash; }
    set hash(v) { setter(this, "hash", v); }
    toString() { return slot(this).href; }
    toJSON() { return slot(this).href; }
  }
  webTag(URL, "URL");
  return [URL, URLSearchParams];
});

// ---- crypto
lazyGroup(["crypto", "Crypto", "SubtleCrypto"], function () {
  var INT_ARRAYS = ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array", "BigInt64Array", "BigUint64Array"];
  var making = false;
  class SubtleCrypto {
    constructor() { if (!making) throw new TypeErrorCtor("Illegal constructor"); }
    digest(algorithm, data) {
      try {
        var name = isObject(algorithm) ? algorithm.name : algorithm;
        name = toStr(name).toUpperCase();
        var b = bufferSource(data, "crypto.subtle.digest()");
        tooBig("crypto.subtle.digest()", b.length * 4);
        var hex = webHost("digest", name + "\n" + bytesToHex(b), "crypto.subtle.digest()");
        return PromiseCtor.resolve(hexToBytes(hex).buffer);
      } catch (e) {
        return rejected(e);
      }
    }
  }
  webTag(SubtleCrypto, "SubtleCrypto");
  var subtle;
  class Crypto {
    constructor() { if (!making) throw new TypeErrorCtor("Illegal constructor"); }
    get subtle() { return subtle; }
    getRandomValues(array) {
      var t = tag(array).slice(8, -1);
      if (!ArrayBuffer.isView(array) || INT_ARRAYS.indexOf(t) < 0) {
        throw domException("The data argument must be an integer-type TypedArray", "TypeMismatchError");
      }
      if (array.byteLength > 65536) {
        throw domException("The ArrayBufferView's byte length (" + array.byteLength + ") exceeds the number of bytes of entropy available via this API (65536)", "QuotaExceededError");
      }
      var bytes = hexToBytes(webHost("random", "" + array.byteLength, "crypto.getRandomValues()"));
      new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(bytes);
      return array;
    }
    randomUUID() {
      var b = hexToBytes(webHost("random", "16", "crypto.randomUUID()"));
      b[6] = b[6] & 0x0f | 0x40;
      b[8] = b[8] & 0x3f | 0x80;
      var h = bytesToHex(b);
      return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
    }
  }
  webTag(Crypto, "Crypto");
  making = true;
  try { subtle = new SubtleCrypto(); var crypto = new Crypto(); } finally { making = false; }
  return [crypto, Crypto, SubtleCrypto];
});

// ---- performance
lazyGroup(["performance", "Performance"], function () {
  // The time origin is the realm's first use of performance (a realm may
  // be built ahead of its program, or restored from a snapshot).
  var origin = null, originWall = 0;
  function clock() {
    var t = +webHost("now", "", "performance.now()");
    if (origin === null) { origin = t; originWall = Date.now(); }
    return t - origin;
  }
  var making = true;
  class Performance extends webValue("EventTarget") {
    constructor() { if (!making) throw new TypeErrorCtor("Illegal constructor"); super(); }
    get timeOrigin() { if (origin === null) clock(); return originWall; }
    now() { return clock(); }
    toJSON() { return { timeOrigin: this.timeOrigin }; }
  }
  webTag(Performance, "Performance");
  var p = new Performance();
  making = false;
  return [p, Performance];
});

// ---- structuredClone (the HTML structured clone algorithm, in-realm)
lazyGroup(["structuredClone"], function () {
  var ERRORS = { Error: ErrorCtor, EvalError: EvalError, RangeError: RangeErrorCtor, ReferenceError: ReferenceError, SyntaxError: SyntaxError, TypeError: TypeErrorCtor, URIError: URIError };
  function fail(v) {
    var what = typeof v === "function" ? (v.name ? "function " + v.name : "function") : typeof v === "symbol" ? "Symbol()" : "#<" + (tag(v).slice(8, -1) || "Object") + ">";
    throw domException(what + " could not be cloned.", "DataCloneError");
  }
  function clone(v, memory) {
    if (!isObject(v)) {
      if (typeof v === "symbol") fail(v);
      return v;
    }
    if (typeof v === "function") fail(v);
    var seen = memory.get(v);
    if (seen !== undefined) return seen;
    var t = tag(v).slice(8, -1), out;
    switch (t) {
      case "Boolean": out = ObjectCtor(Boolean.prototype.valueOf.call(v)); break;
      case "Number": out = ObjectCtor(Number.prototype.valueOf.call(v)); break;
      case "String": out = ObjectCtor(String.prototype.valueOf.call(v)); break;
      case "BigInt": out = ObjectCtor(BigInt.prototype.valueOf.call(v)); break;
      case "Date": out = new Date(Date.prototype.getTime.call(v)); break;
      case "RegExp": out = new RegExp(v.source, v.flags); break;
      case "ArrayBuffer":
        tooBig("structuredClone()", v.byteLength, true);
        out = ArrayBuffer.prototype.slice.call(v, 0); break;
      case "Map": {
        out = new Map(); memory.set(v, out);
        var es = [];
        Map.prototype.forEach.call(v, function (val, k) { es.push([k, val]); });
        for (var i = 0; i < es.length; i++) out.set(clone(es[i][0], memory), clone(es[i][1], memory));
        return out;
      }
      case "Set": {
        out = new Set(); memory.set(v, out);
        var vs = [];
        Set.prototype.forEach.call(v, function (val) { vs.push(val); });
        for (var j = 0; j < vs.length; j++) out.add(clone(vs[j], memory));
        return out;
      }
      case "Error": {
        var name = v.name, C = ERRORS[name] || ErrorCtor;
        out = ReflectConstruct(C, []);
        memory.set(v, out);
        var md = getOwn(v, "message");
        if (md !== undefined) defineProperty(out, "message", { value: toStr(v.message), writable: true, configurable: true, enumerable: false });
        if (v.stack !== undefined) defineProperty(out, "stack", { value: toStr(v.stack), writable: true, configurable: true, enumerable: false });
        if ("cause" in v) defineProperty(out, "cause", { value: clone(v.cause, memory), writable: true, configurable: true, enumerable: false });
        return out;
      }
      case "Array":
        out = new ArrayCtor(v.length); break;
      case "Object":
        if (ArrayBuffer.isView(v)) {
          var buf = clone(v.buffer, memory);
          out = t === "DataView" ? new DataView(buf, v.byteOffset, v.byteLength) : new v.constructor(buf, v.byteOffset, v.length);
          memory.set(v, out);
          return out;
        }
        out = {}; break;
      default:
        if (ArrayBuffer.isView(v)) {
          var buf2 = clone(v.buffer, memory);
          var Ctor = t === "DataView" ? DataView : g[t];
          out = t === "DataView" ? new DataView(buf2, v.byteOffset, v.byteLength) : new Ctor(buf2, v.byteOffset, v.length);
          memory.set(v, out);
          return out;
        }
        fail(v);
    }
    memory.set(v, out);
    if (t === "Array" || t === "Object") {
      var ks = keysOf(v);
      for (var k = 0; k < ks.length; k++) {
        var key = ks[k];
        if (t === "Array" && key === "length") continue;
        defineProperty(out, key, { value: clone(v[key], memory), writable: true, enumerable: true, configurable: true });
      }
    }
    return out;
  }
  function structuredClone(value, options = undefined) {
    if (arguments.length === 0) throw new TypeErrorCtor("The \"value\" argument must be specified");
    return clone(value, new Map());
  }
  return [structuredClone];
});

// (webRegister goes on in intl.js, the next module, which closes it.)
