package measure

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/arrowpack/arrowpack"
)

// Machine describes where a measurement ran, for the record that goes with
// its numbers.
type Machine struct {
	// Implementation is the kernel path in use (arrowpack.Implementation()).
	Implementation string `json:"implementation"`
	// GOOS is the operating system.
	GOOS string `json:"goos"`
	// GOARCH is the architecture.
	GOARCH string `json:"goarch"`
	// CPU is the processor's model name from /proc/cpuinfo, or "" when it is
	// not known.
	CPU string `json:"cpu,omitempty"`
	// NumCPU is the number of logical CPUs usable by the process.
	NumCPU int `json:"num_cpu"`
	// GoVersion is the Go release that built the program.
	GoVersion string `json:"go_version"`
	// Date is the day of the measurement, YYYY-MM-DD (UTC).
	Date string `json:"date"`
}

// ThisMachine describes the machine the program runs on, today.
func ThisMachine() Machine {
	return Machine{
		Implementation: arrowpack.Implementation(),
		GOOS:           runtime.GOOS,
		GOARCH:         runtime.GOARCH,
		CPU:            cpuModel("/proc/cpuinfo"),
		NumCPU:         runtime.NumCPU(),
		GoVersion:      runtime.Version(),
		Date:           time.Now().UTC().Format(time.DateOnly),
	}
}

// String describes the machine in a line: kernels, architecture, CPU, Go
// version and date.
func (m Machine) String() string {
	cpu := m.CPU
	if cpu == "" {
		cpu = "unknown CPU"
	}
	return fmt.Sprintf("kernels %s, %s/%s, %s (%d CPUs), %s, %s",
		m.Implementation, m.GOOS, m.GOARCH, cpu, m.NumCPU, m.GoVersion, m.Date)
}

// cpuModel returns the first CPU model name listed in the cpuinfo file at
// path, or "" if there is none.
func cpuModel(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var fallback string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		switch key {
		case "model name":
			// x86, and arm64 on recent kernels
			if value != "" {
				return value
			}
		case "Hardware", "Model", "cpu model", "uarch":
			// arm boards, riscv
			if fallback == "" {
				fallback = value
			}
		}
	}
	return fallback
}
