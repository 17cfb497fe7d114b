package pgtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of the CPU times in /proc/PID/stat: USER_HZ, 100 a second on Linux.
const userHZ = 100

// CPUTime returns the CPU time, user and system, that the server's processes have used
// since it started, as Linux's /proc counts it (to 10 ms): its postmaster's own, its live
// children's (backends, WAL writer and senders, checkpointer, ...), and that of its
// children that have exited, which the postmaster, having waited for them, counts as its
// children's. The difference of two calls is the CPU time the server used between them.
// It reads only /proc, so it needs Linux and a server on this machine.
func (s *Server) CPUTime() (time.Duration, error) {
	pidFile, err := os.ReadFile(filepath.Join(s.data, "postmaster.pid"))
	if err != nil {
		return 0, fmt.Errorf("the server's postmaster.pid: %w", err)
	}
	first, _, _ := strings.Cut(string(pidFile), "\n")
	postmaster, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		return 0, fmt.Errorf("the server's postmaster.pid: %w", err)
	}
	stat, err := procStat(postmaster)
	if err != nil {
		return 0, err
	}
	ticks := stat.utime + stat.stime + stat.cutime + stat.cstime
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == postmaster {
			continue
		}
		child, err := procStat(pid)
		if err != nil || child.ppid != postmaster {
			continue // gone meanwhile, or not the server's
		}
		ticks += child.utime + child.stime
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}

// processStat is what CPUTime reads of /proc/PID/stat.
type processStat struct {
	ppid                         int
	utime, stime, cutime, cstime int64
}

// procStat reads /proc/PID/stat: fields 4 (ppid) and 14 to 17 (utime, stime, cutime,
// cstime), counted after the command's name, which is in parentheses and may hold spaces.
func procStat(pid int) (processStat, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return processStat{}, err
	}
	end := strings.LastIndexByte(string(data), ')')
	if end < 0 {
		return processStat{}, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	fields := strings.Fields(string(data[end+1:])) // fields[0] is field 3, the state
	if len(fields) < 15 {
		return processStat{}, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(fields)+2)
	}
	var st processStat
	st.ppid, err = strconv.Atoi(fields[1])
	for i, p := range []*int64{&st.utime, &st.stime, &st.cutime, &st.cstime} {
		if err != nil {
			break
		}
		*p, err = strconv.ParseInt(fields[11+i], 10, 64)
	}
	if err != nil {
		return processStat{}, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return st, nil
}
