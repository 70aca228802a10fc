package codec

// SetGather makes pt gather (on) or scatter its flat columns, whatever
// its number of partitions, so that BenchmarkPartition can time both.
func SetGather(pt *Partitioner, on bool) {
	pt.path = -1
	if on {
		pt.path = 1
	}
}
