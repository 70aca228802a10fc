package flight

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A Server serves map-output files (codec.CreateMapOutput) by partition.
// The map output of descriptor path [e1, e2, ...] is the file
// "e1+e2+....apkm" in the server's directory (MapOutputFile names it),
// written there by the map task itself, through durable's rename, so the
// server sees it complete or not at all.
//
// The ticket of partition p of a map output is its key (the file name
// without ".apkm"), the byte '@' and p in decimal: "shuffle1+map3@17" for
// partition 17 of the map output of path ["shuffle1", "map3"]. A key never
// holds '@' (it is escaped as %40), so a plain Flight client builds the
// ticket from the path and the partition alone; PartitionTicket does it.
// GetFlightInfo on a map output's PATH descriptor returns one endpoint per
// partition, in order, each with its ticket and as app_metadata a JSON
// object {"partition": p, "rows": r, "bytes": b, "blocks": k}; its
// TotalRecords and TotalBytes are the map output's.
const (
	mapFileExt = ".apkm"
	partSep    = '@'
)

// MapOutputFile returns the file that a Server of dir serves as the map
// output of descriptor path, where a map task writes it.
func MapOutputFile(dir string, path []string) (string, error) {
	key, err := keyOf(path)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, key+mapFileExt), nil
}

// PartitionTicket returns the ticket of partition p of the map output of
// descriptor path (see Server).
func PartitionTicket(path []string, p int) (*aflight.Ticket, error) {
	key, err := keyOf(path)
	if err != nil {
		return nil, err
	}
	if p < 0 {
		return nil, fmt.Errorf("%w: partition %d is negative", codec.ErrInvalidBatch, p)
	}
	return &aflight.Ticket{Ticket: partTicket(key, p)}, nil
}

// partTicket returns the ticket of partition p of the map output of key.
func partTicket(key string, p int) []byte {
	return []byte(key + string(partSep) + strconv.Itoa(p))
}

// PartitionMeta is the app_metadata of a map output's endpoint in
// GetFlightInfo, as JSON.
type PartitionMeta struct {
	Partition int   `json:"partition"`
	Rows      int64 `json:"rows"`
	Bytes     int64 `json:"bytes"`
	Blocks    int64 `json:"blocks"`
}

// partitionTicket splits a ticket "key@p"; ok is false for a ticket of a
// stream.
func partitionTicket(t string) (key string, p int, ok bool, err error) {
	i := strings.LastIndexByte(t, partSep)
	if i < 0 {
		return t, 0, false, nil
	}
	p, err = strconv.Atoi(t[i+1:])
	if err != nil || p < 0 || t[i+1] == '+' || t[i+1] == '-' {
		return "", 0, true, fmt.Errorf("partition %q is not a number", t[i+1:])
	}
	return t[:i], p, true, nil
}

// openMap opens the stored map output of key, and returns its size.
func (s *Server) openMap(key string) (*os.File, *codec.MapOutput, int64, error) {
	f, st, err := s.openFile(key, mapFileExt)
	if err != nil {
		return nil, nil, 0, err
	}
	m, err := codec.OpenMapOutput(f, st.Size(), codec.WithMaxBlockSize(s.maxBlock))
	if err != nil {
		f.Close()
		return nil, nil, 0, s.damagedFile("map output "+pathName(key), key+mapFileExt, err)
	}
	return f, m, st.Size(), nil
}

// doGetPartition serves partition p of the map output of key as DoGet
// serves a stored stream: its blocks as stored to a client that accepts
// them, converted otherwise, every checksum checked as it is read, and
// the rows counted against the index (a damaged partition ends the call
// with DataLoss, never as a short partition).
func (s *Server) doGetPartition(key string, p int, stream aflight.FlightService_DoGetServer) error {
	ap, comp, set, err := accepted(stream.Context())
	if err != nil {
		return statusOf(err, "arrowpack flight: DoGet")
	}
	f, m, _, err := s.openMap(key)
	if err != nil {
		return err
	}
	defer f.Close()
	name := fmt.Sprintf("partition %d of map output %s", p, pathName(key))
	info, err := m.Partition(p)
	if err != nil {
		return status.Errorf(codes.NotFound, "arrowpack flight: map output %s has %d partitions, no partition %d", pathName(key), m.NumPartitions(), p)
	}
	src, err := m.OpenPartition(p)
	if err != nil {
		return s.damagedFile(name, key+mapFileExt, err)
	}
	rr, err := codec.NewRawReader(src, codec.WithMaxBlockSize(s.maxBlock))
	if err != nil {
		return s.damagedFile(name, key+mapFileExt, err)
	}
	sh := &share{b: s.budget}
	defer sh.release()
	var rows int64
	take := sh.chargeBlock("DoGet " + name)
	charge := func(b codec.BlockInfo, decoded bool) error {
		rows += int64(b.Rows)
		return take(b, decoded)
	}
	err = sendStored(stream, rr, nil, ap, comp, set, s.opts, charge)
	if err == nil && rows != info.Rows {
		err = fmt.Errorf("%w: %w: it holds %d rows, its index says %d", errStored, codec.ErrCorrupt, rows, info.Rows)
	}
	if err != nil {
		if errors.Is(err, errStored) {
			return s.damagedFile(name, key+mapFileExt, err)
		}
		return statusOf(err, "arrowpack flight: DoGet %s", name)
	}
	return nil
}

// mapInfo describes the stored map output of key: one endpoint per
// partition.
func (s *Server) mapInfo(key string) (*aflight.FlightInfo, error) {
	path, err := pathOf(key)
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "arrowpack flight: %v", err)
	}
	f, m, size, err := s.openMap(key)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi := &aflight.FlightInfo{
		Schema:           aflight.SerializeSchema(m.Schema(), memory.DefaultAllocator),
		FlightDescriptor: &aflight.FlightDescriptor{Type: aflight.DescriptorPATH, Path: path},
		TotalRecords:     m.Rows(),
		TotalBytes:       size,
	}
	for p := range m.NumPartitions() {
		info, _ := m.Partition(p)
		meta, _ := json.Marshal(PartitionMeta{Partition: p, Rows: info.Rows, Bytes: info.Length, Blocks: info.Blocks})
		fi.Endpoint = append(fi.Endpoint, &aflight.FlightEndpoint{
			Ticket:      &aflight.Ticket{Ticket: partTicket(key, p)},
			AppMetadata: meta,
		})
	}
	return fi, nil
}
