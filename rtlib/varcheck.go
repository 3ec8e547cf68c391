package rtlib

import (
	"hash/crc32"
	"slices"
	"unsafe"

	"github.com/svmc/svmc/trace"
)

// varCheck writes var-check for the region rg closes (issue 18): a CRC-32
// of the storage of each shared variable the VarCheck request names (all
// of the region's subprogram's shared variables without a list), so that
// svmc diff finds the first region instance whose values differ between
// two runs. Processor 0 writes it; it closes a parallel construct's
// region after the construct's barrier, when every processor's writes are
// in the storage.
func (p *Proc) varCheck(rg *region) {
	r := p.r
	t := r.segTab.Load()
	if t == nil {
		return
	}
	at := rg.at
	vars, restricted := r.req.Vars(p.id, at.Sub, r.regionNo(at), trace.TagVarCheck)
	if p.varInst == nil {
		p.varInst = map[Site]int{}
	}
	p.varInst[at]++
	// The variables with storage, in number order.
	var nums []int
	for _, v := range t.vars {
		if v.sub == at.Sub && (!restricted || slices.Contains(vars, v.num)) && !slices.Contains(nums, v.num) {
			nums = append(nums, v.num)
		}
	}
	slices.Sort(nums)
	for _, num := range nums {
		crc, n := uint32(0), 0
		for i, st := range t.store {
			if t.vars[i] != (segVar{at.Sub, num}) || st.Size <= 0 || st.ptr == nil {
				continue
			}
			crc = crc32.Update(crc, crc32.IEEETable, unsafe.Slice((*byte)(st.ptr), st.Size))
			n += st.Size
		}
		p.begin(trace.TagVarCheck, p.id)
		p.site(at)
		p.buf.Int(num)
		p.buf.Int(p.varInst[at])
		p.buf.Int(int(int32(crc)))
		p.buf.Int(n)
		p.end()
	}
}
