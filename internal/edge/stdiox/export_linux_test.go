package stdiox

// The tests spin whatever the machine's load, so that they exercise it.
func init() { assumeSpareCore = true }
