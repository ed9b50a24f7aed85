package tproch

import (
	"sync"
	"time"
)

// progress calls the user's callback with snapshots of a long operation:
// at every phase change and every 250 ms while a watch function is set.
type progress struct {
	fn    func(Progress)
	mu    sync.Mutex
	cur   Progress
	watch func() (int64, string)
	done  chan struct{}
	once  sync.Once
}

func newProgress(fn func(Progress)) *progress {
	p := &progress{fn: fn, done: make(chan struct{})}
	if fn != nil {
		go p.loop()
	}
	return p
}

func (p *progress) loop() {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return
		case <-t.C:
			p.mu.Lock()
			if w := p.watch; w != nil {
				p.cur.RowsDone, p.cur.Table = w()
				p.report()
			}
			p.mu.Unlock()
		}
	}
}

// report must be called with mu held: callbacks never run concurrently.
func (p *progress) report() {
	if p.fn != nil {
		p.fn(p.cur)
	}
}

func (p *progress) phase(name string, done, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cur = Progress{Phase: name, RowsDone: done, RowsTotal: total}
	p.report()
}

func (p *progress) setWatch(w func() (int64, string)) {
	p.mu.Lock()
	p.watch = w
	p.mu.Unlock()
}

func (p *progress) advance(n int64, table string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cur.RowsDone += n
	p.cur.Table = table
	p.report()
}

// end stops watching and reports the phase finished: done rows of done, so
// that the bar ends full whatever the last tick showed.
func (p *progress) end(done int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.watch = nil
	p.cur.RowsDone, p.cur.RowsTotal = done, done
	p.report()
}

func (p *progress) stop() { p.once.Do(func() { close(p.done) }) }
