//go:build !linux

package runtime

// physicalMemory reports the machine's RAM, 0 if unknown (only Linux is
// read; elsewhere the governor's default assumes 4 GiB unless configured).
func physicalMemory() int64 { return 0 }
