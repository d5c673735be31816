package quickjs

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Fetch places the pinned artifact into dir ("" means DefaultDir). It is a
// no-op when dir already holds a verified artifact.
//
// It runs `npm pack <package>@<version>` in a temporary directory (npm checks
// the tarball against the registry's integrity), checks the tarball against
// PackageIntegrity too, extracts the wasm, the glue and LICENSE, verifies
// their sha256 and renames them into place, so a reader never sees a
// half-written file. Progress goes to log.
func Fetch(ctx context.Context, dir string, log io.Writer) error {
	if dir == "" {
		d, err := DefaultDir()
		if err != nil {
			return err
		}
		dir = d
	}
	if _, err := LoadArtifact(dir); err == nil {
		fmt.Fprintf(log, "quickjs artifact up to date in %s\n", dir)
		return nil
	}
	tmp, err := os.MkdirTemp("", "codemode-quickjs-fetch-")
	if err != nil {
		return fmt.Errorf("fetching quickjs: %w", err)
	}
	defer os.RemoveAll(tmp)

	spec := PackageName + "@" + PackageVersion
	fmt.Fprintf(log, "npm pack %s\n", spec)
	cmd := exec.CommandContext(ctx, "npm", "pack", "--silent", spec)
	cmd.Dir = tmp
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("fetching quickjs: npm pack %s: %w: %s", spec, err, strings.TrimSpace(stderr.String()))
	}
	name := strings.TrimSpace(string(out))
	if i := strings.LastIndexByte(name, '\n'); i >= 0 {
		name = name[i+1:]
	}
	tgz, err := os.ReadFile(filepath.Join(tmp, name))
	if err != nil {
		return fmt.Errorf("fetching quickjs: reading the tarball npm reported (%q): %w", name, err)
	}
	sum := sha512.Sum512(tgz)
	if got := "sha512-" + base64.StdEncoding.EncodeToString(sum[:]); got != PackageIntegrity {
		return fmt.Errorf("fetching quickjs: tarball integrity %s, want %s", got, PackageIntegrity)
	}

	want := map[string]string{
		"package/dist/" + WasmFile: WasmFile,
		"package/dist/" + GlueFile: GlueFile,
		"package/" + LicenseFile:   LicenseFile,
	}
	files, err := untar(tgz, want)
	if err != nil {
		return fmt.Errorf("fetching quickjs: %w", err)
	}
	for _, f := range []struct{ name, sha string }{{WasmFile, WasmSHA256}, {GlueFile, GlueSHA256}} {
		if got := sha256Hex(files[f.name]); got != f.sha {
			return fmt.Errorf("fetching quickjs: %s has sha256 %s, want %s", f.name, got, f.sha)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("fetching quickjs: %w", err)
	}
	// LICENSE first and the wasm last: LoadArtifact keys on the wasm.
	for _, n := range []string{LicenseFile, GlueFile, WasmFile} {
		if err := writeAtomic(filepath.Join(dir, n), files[n]); err != nil {
			return fmt.Errorf("fetching quickjs: %w", err)
		}
	}
	if _, err := LoadArtifact(dir); err != nil {
		return fmt.Errorf("fetching quickjs: verifying what was written: %w", err)
	}
	fmt.Fprintf(log, "quickjs artifact (%s@%s, wasm sha256 %s) placed in %s\n", PackageName, PackageVersion, WasmSHA256, dir)
	return nil
}

// untar extracts the entries named in want (tar path → output name).
func untar(tgz []byte, want map[string]string) (map[string][]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	files := map[string][]byte{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		out, ok := want[h.Name]
		if !ok || h.Typeflag != tar.TypeReg {
			continue
		}
		// The biggest file is the ~0.5 MB wasm; cap reads so a corrupt
		// tarball cannot exhaust memory.
		b, err := io.ReadAll(io.LimitReader(tr, 16<<20))
		if err != nil {
			return nil, err
		}
		files[out] = b
	}
	for path, out := range want {
		if files[out] == nil {
			return nil, fmt.Errorf("tarball has no %s", path)
		}
	}
	return files, nil
}

func writeAtomic(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), path)
}
