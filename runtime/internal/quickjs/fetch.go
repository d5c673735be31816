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

	"github.com/codemode/codemode/runtime/internal/quickjs/embed"
)

// Files are the artifact's files by name (WasmFile, GlueFile, LicenseFile).
type Files map[string][]byte

// FetchNPM re-derives the pinned artifact from npm: it runs `npm pack
// <package>@<version>` in a temporary directory (npm checks the tarball
// against the registry's integrity), checks the tarball against
// PackageIntegrity too, extracts the wasm, the glue and LICENSE, verifies
// the package's wasm against SourceWasmSHA256, re-optimises it with
// Optimize, and verifies the result against WasmSHA256. It needs npm and
// binaryen's wasm-opt (release WasmOptVersion) on PATH and the registry
// reachable; without that wasm-opt it fails before calling npm, with an
// error wrapping ErrWasmOpt. Progress goes to log.
func FetchNPM(ctx context.Context, log io.Writer) (Files, error) {
	if err := checkWasmOpt(ctx); err != nil {
		return nil, fmt.Errorf("fetching quickjs: %w", err)
	}
	tmp, err := os.MkdirTemp("", "codemode-quickjs-fetch-")
	if err != nil {
		return nil, fmt.Errorf("fetching quickjs: %w", err)
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
		return nil, fmt.Errorf("fetching quickjs: npm pack %s: %w: %s", spec, err, strings.TrimSpace(stderr.String()))
	}
	name := strings.TrimSpace(string(out))
	if i := strings.LastIndexByte(name, '\n'); i >= 0 {
		name = name[i+1:]
	}
	tgz, err := os.ReadFile(filepath.Join(tmp, name))
	if err != nil {
		return nil, fmt.Errorf("fetching quickjs: reading the tarball npm reported (%q): %w", name, err)
	}
	sum := sha512.Sum512(tgz)
	if got := "sha512-" + base64.StdEncoding.EncodeToString(sum[:]); got != PackageIntegrity {
		return nil, fmt.Errorf("fetching quickjs: tarball integrity %s, want %s", got, PackageIntegrity)
	}

	want := map[string]string{
		"package/dist/" + WasmFile: WasmFile,
		"package/dist/" + GlueFile: GlueFile,
		"package/" + LicenseFile:   LicenseFile,
	}
	files, err := untar(tgz, want)
	if err != nil {
		return nil, fmt.Errorf("fetching quickjs: %w", err)
	}
	if got := sha256Hex(files[WasmFile]); got != SourceWasmSHA256 {
		return nil, fmt.Errorf("fetching quickjs: %s of npm:%s has sha256 %s, want %s", WasmFile, spec, got, SourceWasmSHA256)
	}
	fmt.Fprintf(log, "wasm-opt %s\n", WasmOptFlags)
	opt, err := Optimize(ctx, files[WasmFile])
	if err != nil {
		return nil, fmt.Errorf("fetching quickjs: %w", err)
	}
	files[WasmFile] = opt
	if _, err := verify("npm:"+spec+" after wasm-opt", files[WasmFile], files[GlueFile]); err != nil {
		return nil, fmt.Errorf("fetching quickjs: %w", err)
	}
	return files, nil
}

// ErrWasmOpt is wrapped by the error of Optimize (and FetchNPM) when
// binaryen's wasm-opt is not on PATH or is another release than
// WasmOptVersion (whose output could differ from the pinned bytes).
var ErrWasmOpt = errors.New("re-deriving the quickjs wasm needs wasm-opt of binaryen " + WasmOptVersion + " on PATH (Debian: apt-get install binaryen)")

// checkWasmOpt checks that wasm-opt on PATH is release WasmOptVersion.
func checkWasmOpt(ctx context.Context) error {
	out, err := exec.CommandContext(ctx, "wasm-opt", "--version").Output()
	if err != nil {
		return fmt.Errorf("%w: wasm-opt --version: %v", ErrWasmOpt, err)
	}
	if got := strings.TrimSpace(string(out)); got != "wasm-opt version "+WasmOptVersion {
		return fmt.Errorf("%w: wasm-opt --version says %q", ErrWasmOpt, got)
	}
	return nil
}

// Optimize derives the embedded wasm from the package's: it runs wasm-opt
// (binaryen WasmOptVersion) with WasmOptFlags over src, whose sha256 must
// be SourceWasmSHA256, and returns what wasm-opt wrote (the caller checks
// it against WasmSHA256).
func Optimize(ctx context.Context, src []byte) ([]byte, error) {
	if got := sha256Hex(src); got != SourceWasmSHA256 {
		return nil, fmt.Errorf("optimizing the quickjs wasm: the input has sha256 %s, want %s", got, SourceWasmSHA256)
	}
	if err := checkWasmOpt(ctx); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "codemode-quickjs-opt-")
	if err != nil {
		return nil, fmt.Errorf("optimizing the quickjs wasm: %w", err)
	}
	defer os.RemoveAll(tmp)
	in, out := filepath.Join(tmp, "in.wasm"), filepath.Join(tmp, "out.wasm")
	if err := os.WriteFile(in, src, 0o644); err != nil {
		return nil, fmt.Errorf("optimizing the quickjs wasm: %w", err)
	}
	args := append([]string{in}, strings.Fields(WasmOptFlags)...)
	cmd := exec.CommandContext(ctx, "wasm-opt", append(args, "-o", out)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("optimizing the quickjs wasm: wasm-opt %s: %w: %s", WasmOptFlags, err, strings.TrimSpace(stderr.String()))
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("optimizing the quickjs wasm: %w", err)
	}
	return b, nil
}

// CompareEmbedded reports how files (as FetchNPM derives them) differ from
// the copy embedded in the binary (package embed): one line per file that
// differs, none when every byte matches.
func CompareEmbedded(files Files) []string {
	var diffs []string
	for _, f := range []struct {
		name string
		b    []byte
	}{{WasmFile, embed.Wasm}, {GlueFile, embed.Glue}, {LicenseFile, []byte(embed.License)}} {
		if got := files[f.name]; !bytes.Equal(got, f.b) {
			diffs = append(diffs, fmt.Sprintf("%s: the derived file has %d bytes (sha256 %s), the embedded copy %d bytes (sha256 %s)",
				f.name, len(got), sha256Hex(got), len(f.b), sha256Hex(f.b)))
		}
	}
	return diffs
}

// WriteDir writes files into dir (created if needed), each renamed into
// place so that a reader never sees a half-written file; the wasm goes
// last, since LoadArtifact keys on it.
func (files Files) WriteDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, n := range []string{LicenseFile, GlueFile, WasmFile} {
		if err := writeAtomic(filepath.Join(dir, n), files[n]); err != nil {
			return err
		}
	}
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
