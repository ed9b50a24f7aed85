package metrics

// AnalyticResult is a TPROC-H run: the power test (stream 0) and, when
// Streams > 0, the throughput test (streams 1..Streams and a refresh stream).
// Metrics that could not be computed are NaN; Warnings say why.
type AnalyticResult struct {
	Status     string
	SF         float64
	Streams    int
	QuerySets  int
	Seed       int64 // seed0: stream s draws its parameters from Seed+s
	Refresh    bool
	Validation bool // run with the specification's validation parameters
	// Validated is "passed" or "failed" when the power test's answers were
	// compared with the stored SF 1 answers, empty when they were not.
	Validated string
	Queries   []AnalyticQuery
	Refreshes []AnalyticRefresh

	PowerSeconds      float64 // wall time of the power test
	ThroughputSeconds float64 // wall time of the throughput test
	TsS               float64 // throughput interval, rounded up to 0.01 s
	GeomeanS          float64 // geometric mean of the power test's 22 query times
	Power             float64 // TPROC-H power, queries per hour × SF
	Throughput        float64 // TPROC-H throughput, queries per hour × SF
	Composite         float64 // √(power × throughput)
	Warnings          []string
}

// AnalyticQuery is one query execution.
type AnalyticQuery struct {
	Stream   int // 0: power test
	Position int // 1..22 within the stream's order
	Set      int // query set number within the stream (1 unless --query-sets)
	Query    int // 1..22
	Seconds  float64
	Rows     int64
	Error    string // empty when it succeeded
	// Check is the answer check: "ok", what differed, or empty (not checked).
	Check string
}

// AnalyticRefresh is one refresh function execution.
type AnalyticRefresh struct {
	Stream   int // 0: power test; Streams+1: the throughput test's refresh stream
	Set      int // update set number
	Function string
	Seconds  float64
	Rows     int64
	Error    string
}
