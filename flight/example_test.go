package flight_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	aflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/arrowpack/arrowpack/codec"
	"github.com/arrowpack/arrowpack/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// Put a batch to a Server as arrowpack blocks, then get it back, asking
// for arrowpack with LZ4.
func Example() {
	dir, _ := os.MkdirTemp("", "flight-example")
	defer os.RemoveAll(dir)
	store, err := flight.NewServer(dir, codec.WithCompression(codec.LZ4))
	if err != nil {
		panic(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	srv := grpc.NewServer()
	aflight.RegisterFlightServiceServer(srv, store)
	go srv.Serve(lis)
	defer srv.Stop()

	client, err := aflight.NewClientWithMiddleware(lis.Addr().String(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		panic(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// A batch of two columns.
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "name", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"a", "b", "c"}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()

	// Put: the descriptor path names the stream on the server.
	put, err := client.DoPut(ctx)
	if err != nil {
		panic(err)
	}
	w, err := flight.NewWriter(put, schema, codec.WithCompression(codec.LZ4))
	if err != nil {
		panic(err)
	}
	path := &aflight.FlightDescriptor{Type: aflight.DescriptorPATH, Path: []string{"example", "names"}}
	w.SetFlightDescriptor(path)
	if err := w.Write(rec); err != nil {
		panic(err)
	}
	w.Close()
	put.CloseSend()
	for {
		if _, err := put.Recv(); err != nil {
			if !errors.Is(err, io.EOF) {
				panic(err) // the server refused the stream
			}
			break
		}
	}

	// Get: find the ticket, then ask for arrowpack blocks.
	info, err := client.GetFlightInfo(ctx, path)
	if err != nil {
		panic(err)
	}
	get, err := client.DoGet(flight.Accept(ctx, codec.LZ4), info.Endpoint[0].Ticket)
	if err != nil {
		panic(err)
	}
	r, err := flight.NewReader(get)
	if err != nil {
		panic(err)
	}
	defer r.Release()
	for r.Next() {
		got := r.RecordBatch()
		fmt.Println(got.NumRows(), "rows, equal:", array.RecordEqual(got, rec))
	}
	if err := r.Err(); err != nil {
		panic(err)
	}
	// Output: 3 rows, equal: true
}
