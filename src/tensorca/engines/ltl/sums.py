"""Numba kernels of the ``ltl-cpu`` engine: Larger than Life counts in O(1) per cell at any range.

Every grid lives in a padded ``(H + 2r, W + 2r)`` ``uint8`` buffer whose ``r``-wide ring is filled
before each generation (:func:`fill_ring`: a gather, from :func:`~tensorca.topology.padding_ring`,
for every topology but the plane, whose ring stays 0). Output row ``y`` is centred on padded row
``y + r``. Counts are kept per output row in one vector of the narrowest unsigned dtype that holds
the largest count (``uint8``, ``uint16``, ``uint32``; sums may wrap in between, since every
difference taken is of sums that fit), and
every inner loop runs over the row with constant offsets into slices, so LLVM vectorises it (32
``uint8`` or 16 ``uint16`` lanes on AVX2):

- **Moore** (:func:`moore_rows`): each padded row's window of ``2r + 1`` columns is summed once,
  by doubling (sums of width 1, 2, 4, ... combined along the bits of ``2r + 1``; ``log2(2r + 1)``
  passes of 32 ``uint8`` lanes, no serial running sum), into a ring of ``2r + 2`` rows; a row's
  count is the previous row's plus the window sum of the row that enters less the one that leaves.
- **von Neumann** (:func:`diamond_rows`): the diamond centred one row lower gains the cells on its
  lower chevron and loses those on the upper chevron of the current one; each chevron is two
  diagonal segments, read as differences of diagonal prefix sums (down-right and down-left), kept
  in a ring of ``2r + 3`` rows. Ten loads per cell whatever ``r``.
- **Any other mask** (:func:`span_rows`): each horizontal run of the mask is a difference of row
  prefix sums (a ring of ``2r + 1`` rows): O(runs) per cell, as the NumPy reference counts.

The Moore and von Neumann kernels count the whole square or diamond; the centre is subtracted
after when the mask leaves it out (``M0``, HROT). A row block first finds the padded rows holding a
state-1 cell: output rows whose whole window is dead are written without counting (0, or the decay
of states >= 2) when a dead window is not a birth, and the counting restarts after each such run
(Golly's ``ltlalgo`` limits its work to the live bounding box).

Work is split into bands of rows, each starting its sums afresh; one driver per kernel
(:func:`run_moore`, :func:`run_diamond`, :func:`run_spans`: a rule compiles only its own) runs the
generations of a list of bands, and the engine runs the bands on a few Python threads (the kernels
release the GIL). A generation whose input holds state 0 only stops the run (every later
generation is all 0), as Golly's ``ltlalgo`` has nothing left to step.
"""

from __future__ import annotations

import numpy as np

from ..._numba import njit


@njit(cache=True, nogil=True)
def fill_ring(padded, dst, src, rows, cols, r, p0, p1):
    """Refill the ring cells of padded rows ``p0..p1-1`` of one ``(Hp, Wp)`` grid from its interior.

    A plain torus is separable (``rows``/``cols`` non-empty: padded cell ``(p, c)`` copies
    ``(rows[p], cols[c])``): row copies, vectorised. Any other topology gathers
    ``padded.flat[dst[j]] = padded.flat[src[j]]`` for the ``dst`` (sorted) in those rows. Only
    interior cells are read either way, so bands may fill their rows in any order.
    """
    hp, wp = padded.shape
    if rows.size:
        width = wp - 2 * r
        for p in range(p0, p1):
            line = padded[p]
            source = padded[rows[p]]
            if p < r or p >= hp - r:  # a ring row: its interior is a whole interior row
                inner = line[r:]
                copied = source[r:]
                for x in range(width):
                    inner[x] = copied[x]
            for c in range(r):
                line[c] = source[cols[c]]
                line[wp - 1 - c] = source[cols[wp - 1 - c]]
        return
    flat = padded.reshape(-1)
    first = np.searchsorted(dst, p0 * wp)
    last = np.searchsorted(dst, p1 * wp)
    for j in range(first, last):
        flat[dst[j]] = flat[src[j]]


# -- the update: counts -> next states -----------------------------------------------------------


@njit(cache=True, nogil=True)
def _in_intervals(cnt, lo, hi, verdict, width):
    """``verdict[x] = 1`` where ``cnt[x]`` lies in one of the inclusive ``[lo[i], hi[i]]``, else 0."""
    for x in range(width):
        verdict[x] = 0
    wrap = cnt.dtype.type
    for i in range(lo.size):
        a = lo[i]
        span = wrap(hi[i] - lo[i])
        for x in range(width):
            verdict[x] |= wrap(cnt[x] - a) <= span  # a count below lo wraps past the span


@njit(cache=True, nogil=True)
def apply_row(cnt, srow, orow, width, sub, b_lo, b_hi, s_lo, s_hi, n_states, vb, vs):
    """Next states of one output row from its counts.

    ``cnt``: counts (``width`` used; the centre subtracted first when ``sub``); ``srow``/``orow``:
    the row's current/next states (``uint8`` slices starting at the first interior cell);
    ``b_lo``/``b_hi``, ``s_lo``/``s_hi``: birth and survival intervals (the unsigned count dtype:
    ``lo <= count <= hi`` is tested as ``count - lo <= hi - lo``, wrapped in that dtype); ``vb``/``vs``:
    ``uint8`` scratch. A state-1 cell survives by ``s``, any other is born by ``b``; with more than
    two states a failed survivor becomes 2 and states >= 2 age, ``n_states - 1`` wrapping to 0.
    """
    if sub:
        for x in range(width):
            cnt[x] = cnt[x] - (srow[x] == 1)
    if b_lo.size == 1 and s_lo.size == 1 and n_states == 2:
        wrap = cnt.dtype.type
        bl = b_lo[0]
        sl = s_lo[0]
        bs = wrap(b_hi[0] - b_lo[0])
        ss = wrap(s_hi[0] - s_lo[0])
        for x in range(width):
            a = srow[x] == 1
            lo = sl if a else bl
            span = ss if a else bs
            orow[x] = wrap(cnt[x] - lo) <= span
        return
    _in_intervals(cnt, b_lo, b_hi, vb, width)
    _in_intervals(cnt, s_lo, s_hi, vs, width)
    if n_states == 2:
        for x in range(width):
            a = srow[x] == 1
            orow[x] = vs[x] if a else vb[x]
        return
    for x in range(width):
        st = np.int32(srow[x])
        older = st + 1
        older = older if older < n_states else 0
        nxt = (st == 0) * vb[x] + (st == 1) * (2 - vs[x]) + (st >= 2) * older
        orow[x] = nxt


@njit(cache=True, nogil=True)
def add_and_apply(cnt, enter, leave, srow, orow, width, sub, b_lo, b_hi, s_lo, s_hi):
    """``cnt += enter - leave``, then :func:`apply_row`'s two-state, one-interval rule in the same
    pass (``cnt`` keeps the counts with the centre; ``sub`` takes it out of the verdict only)."""
    wrap = cnt.dtype.type
    bl = b_lo[0]
    sl = s_lo[0]
    bs = wrap(b_hi[0] - b_lo[0])
    ss = wrap(s_hi[0] - s_lo[0])
    for x in range(width):
        c = wrap(cnt[x] + enter[x] - leave[x])
        cnt[x] = c
        a = srow[x] == 1
        lo = sl if a else bl
        span = ss if a else bs
        orow[x] = wrap(c - (a & sub) - lo) <= span


@njit(cache=True, nogil=True)
def quiet_row(srow, orow, width, n_states):
    """Next states of a row whose whole window is dead (and a dead window is no birth): 0, or decay."""
    if n_states == 2:
        for x in range(width):
            orow[x] = 0
        return
    for x in range(width):
        st = np.int32(srow[x])
        older = st + 1
        orow[x] = (st >= 2) * (older if older < n_states else 0)


# -- counts: Moore, diamond, spans ------------------------------------------------------------


@njit(cache=True, nogil=True)
def _row_window(row, h, t1, t2, w, width):
    """Window sums of ``w`` (odd) state-1 cells along padded ``row``, by doubling, all but the last
    term: returns ``last`` with ``h[x] + last[x]`` = state-1 cells in ``row[x : x + w]`` for ``x <
    width``. ``h`` starts as the row's 0/1 alive cells (the window's first term); ``h``, ``t1``,
    ``t2`` hold ``width + w - 1`` or more."""
    total = width + w - 1
    for x in range(total):
        h[x] = row[x] == 1
    s = h[1:]
    for x in range(total - 1):
        t1[x] = h[x] + s[x]
    src = t1
    cur = 2  # width of the sums in src
    off = 1  # next column of the window not yet in h
    rem = w >> 1
    while True:
        if rem & 1:
            if rem == 1:
                return src[off:]
            s = src[off:]
            for x in range(width):
                h[x] = h[x] + s[x]
            off += cur
        rem >>= 1
        dst = t2 if src is t1 else t1
        s = src[cur:]
        for x in range(total - 2 * cur + 1):
            dst[x] = src[x] + s[x]
        src = dst
        cur *= 2


#: Cells of padded rows whose window sums are taken in one pass (long loops: LLVM's vector loops
#: handle 4 vectors per iteration, so a short row spends much of its time in the scalar remainder).
CHUNK_CELLS = 8192


@njit(cache=True, nogil=True)
def moore_rows(padded, out, r, ys, ye, width, sub, hw, b_lo, b_hi, s_lo, s_hi, n_states):
    """Output rows ``ys..ye-1`` of one grid under the ``(2r+1)^2`` square (centre counted, ``sub``
    removes it).

    The window sums of ``2r + 1`` columns of each padded row are taken once, by doubling, in the
    narrow dtype of ``hw`` (``uint8`` while ``2r + 1 <= 255``), a chunk of rows at a time: rows are
    contiguous, so one pass runs over the chunk as one line (the sums that straddle two rows are
    never read). Chunks go to a ring of whole chunks, large enough for the ``2r + 1`` rows still
    needed plus the chunk being made, so a chunk never wraps and nothing is copied. The count of
    a row is the previous one plus the row that enters less the row that leaves; for one birth
    and one survival interval and two states, the count and the verdict are one pass
    (:func:`add_and_apply`).
    """
    w = 2 * r + 1
    wp = width + 2 * r
    chunk = max(1, CHUNK_CELLS // wp)
    capacity = chunk * ((w + 2 * chunk - 1) // chunk)  # whole chunks, at least w + chunk rows
    flat = padded.reshape(-1)
    sums = np.empty(capacity * wp, hw.dtype)  # window sums of padded row p in slot (p - ys) % capacity
    t1 = np.empty(chunk * wp, hw.dtype)
    t2 = np.empty(chunk * wp, hw.dtype)
    cnt = np.zeros(width, b_lo.dtype)
    work = np.empty(width, b_lo.dtype)  # the counts less the centre (cnt carries on to the next row)
    vb = np.empty(width, np.uint8)
    vs = np.empty(width, np.uint8)
    fused = b_lo.size == 1 and s_lo.size == 1 and n_states == 2
    made = ys  # window sums exist for padded rows ys .. made - 1
    end = ye + 2 * r
    for y in range(ys, ye):
        need = y + 2 * r if y > ys else ys + 2 * r  # the last padded row this output row reads
        while need >= made:
            k = min(chunk, end - made)
            line = flat[made * wp : (made + k) * wp]
            slot = (made - ys) % capacity
            dst = sums[slot * wp : (slot + k) * wp]
            n = k * wp - w + 1
            last = _row_window(line, dst, t1, t2, w, n)
            for x in range(n):
                dst[x] = dst[x] + last[x]
            made += k
        if y == ys:
            for p in range(ys, ys + w):
                h = sums[((p - ys) % capacity) * wp :]
                for x in range(width):
                    cnt[x] = cnt[x] + h[x]
        else:
            enter = sums[((y + 2 * r - ys) % capacity) * wp :]
            leave = sums[((y - 1 - ys) % capacity) * wp :]
            if fused:  # LtL's usual case: one pass for the count and the verdict
                add_and_apply(cnt, enter, leave, padded[y + r, r:], out[y + r, r:], width, sub, b_lo, b_hi, s_lo,
                              s_hi)
                continue
            for x in range(width):
                cnt[x] = cnt[x] + enter[x] - leave[x]
        counts = cnt
        if sub:
            for x in range(width):
                work[x] = cnt[x]
            counts = work
        apply_row(counts, padded[y + r, r:], out[y + r, r:], width, sub, b_lo, b_hi, s_lo, s_hi, n_states, vb, vs)


@njit(cache=True, nogil=True)
def _diagonal_row(arow, prev_dr, prev_dl, dr, dl, wp):
    """Diagonal prefix sums of padded row ``arow`` (column ``q`` at index ``q + 1``, ``-1..wp``):
    ``dr[q] = alive[q] + prev_dr[q - 1]`` (down-right), ``dl[q] = alive[q] + prev_dl[q + 1]``."""
    dr[0] = 0
    dl[0] = prev_dl[1]
    p_dr = prev_dr[0:]
    p_dl = prev_dl[2:]
    o_dr = dr[1:]
    o_dl = dl[1:]
    for x in range(wp):
        a = arow[x] == 1
        o_dr[x] = p_dr[x] + a
        o_dl[x] = p_dl[x] + a
    dr[wp + 1] = prev_dr[wp]
    dl[wp + 1] = 0


@njit(cache=True, nogil=True)
def diamond_rows(padded, out, r, ys, ye, width, sub, b_lo, b_hi, s_lo, s_hi, n_states):
    """Output rows ``ys..ye-1`` of one grid under the diamond ``|dx| + |dy| <= r`` (centre counted).

    Rows above padded row ``ys`` (the top of the first diamond) are taken as dead, so the count of
    the centre ``r + 1`` rows above the first diamond's top is 0; each step down adds the lower
    chevron of the next diamond and subtracts the upper chevron of the current one (``2r + 1``
    warm-up steps, then one output row per step).
    """
    wp = width + 2 * r
    ring = 2 * r + 3
    dr = np.zeros((ring, wp + 2), b_lo.dtype)
    dl = np.zeros((ring, wp + 2), b_lo.dtype)
    cnt = np.zeros(width, b_lo.dtype)
    work = np.empty(width, b_lo.dtype)  # the counts less the centre (cnt carries on to the next row)
    dead = np.zeros(wp, np.uint8)
    vb = np.empty(width, np.uint8)
    vs = np.empty(width, np.uint8)
    top = ys
    for c in range(top - r - 1, ye + r - 1):
        p = c + 1 + r  # the padded row that enters: row p of the diagonal sums is made now
        sp = (p - top + ring) % ring
        sc = (c - top + ring) % ring
        sm = (c - r - 1 - top + 2 * ring) % ring
        prev = (p - 1 - top + ring) % ring
        _diagonal_row(padded[p], dr[prev], dl[prev], dr[sp], dl[sp], wp)
        a_new = padded[p, r:]
        a_old = padded[c - r, r:] if c - r >= top else dead
        dr_p = dr[sp, r + 1:]
        dl_p = dl[sp, r + 1:]
        dr_c0 = dr[sc]
        dl_c0 = dl[sc, 2 * r + 2:]
        dl_c1 = dl[sc, 1:]
        dr_c1 = dr[sc, 2 * r + 1:]
        dl_m = dl[sm, r + 2:]
        dr_m = dr[sm, r:]
        for x in range(width):
            cnt[x] = (cnt[x] + dr_p[x] - dr_c0[x] + dl_p[x] - dl_c0[x] - (a_new[x] == 1)
                      - dl_c1[x] + dl_m[x] - dr_c1[x] + dr_m[x] + (a_old[x] == 1))
        y = c + 1 - r
        if y >= ys:
            counts = cnt
            if sub:
                for x in range(width):
                    work[x] = cnt[x]
                counts = work
            apply_row(counts, padded[y + r, r:], out[y + r, r:], width, sub, b_lo, b_hi, s_lo, s_hi, n_states, vb, vs)


@njit(cache=True, nogil=True)
def _prefix_row(arow, q, wp):
    """``q[j] = number of state-1 cells in arow[:j]`` for ``j = 0..wp`` (a serial scan, once per row)."""
    acc = q[0] * 0
    for j in range(wp):
        q[j] = acc
        acc += arow[j] == 1
    q[wp] = acc


@njit(cache=True, nogil=True)
def span_rows(padded, out, r, ys, ye, width, runs, b_lo, b_hi, s_lo, s_hi, n_states):
    """Output rows ``ys..ye-1`` of one grid under any 0/1 mask given as its horizontal ``runs``
    (``(n, 3)`` int64 rows ``(dy, first, last)``, mask coordinates, inclusive): per run, a difference
    of the row prefix sums of padded row ``y + dy``."""
    w = 2 * r + 1
    wp = width + 2 * r
    q = np.empty((w, wp + 1), b_lo.dtype)
    cnt = np.empty(width, b_lo.dtype)
    vb = np.empty(width, np.uint8)
    vs = np.empty(width, np.uint8)
    for k in range(w - 1):
        _prefix_row(padded[ys + k], q[(ys + k - ys) % w], wp)
    for y in range(ys, ye):
        _prefix_row(padded[y + 2 * r], q[(y + 2 * r - ys) % w], wp)
        for x in range(width):
            cnt[x] = 0
        for i in range(runs.shape[0]):
            row = q[(y + runs[i, 0] - ys) % w]
            hi = row[runs[i, 2] + 1:]
            lo = row[runs[i, 1]:]
            for x in range(width):
                cnt[x] = cnt[x] + hi[x] - lo[x]
        apply_row(cnt, padded[y + r, r:], out[y + r, r:], width, False, b_lo, b_hi, s_lo, s_hi, n_states, vb, vs)


# -- blocks, grids, runs ----------------------------------------------------------------------


@njit(cache=True, nogil=True)
def prepare_band(padded, out, r, y0, y1, width, n_states, skip, dst, src, rows, cols, lit):
    """Ready output rows ``y0..y1-1`` of one grid for counting; returns ``(count, empty)``.

    Refills the ring cells of the padded rows the band reads (:func:`fill_ring`, from
    ``rows``/``cols`` or ``dst``/``src``; a plane has neither). Then, when ``skip`` (a dead window
    is no birth), finds the maximal runs of rows whose window (padded rows ``y..y+2r``) holds a
    state-1 cell, stores them as ``lit[k] = (start, end)`` (``count`` of them; ``lit`` holds ``y1 -
    y0`` or more) and writes every other row with :func:`quiet_row`; ``empty``: the band's own rows
    hold state 0 only, so its next rows are all 0. Without ``skip`` the band is one run.
    """
    if dst.size or rows.size:
        fill_ring(padded, dst, src, rows, cols, r, y0, y1 + 2 * r)
    if not skip:
        lit[0, 0] = y0
        lit[0, 1] = y1
        return 1, False
    w = 2 * r + 1
    n_pad = y1 - y0 + 2 * r
    live = np.zeros(n_pad, np.int32)
    occupied = np.uint8(0)
    for i in range(n_pad):
        row = padded[y0 + i]
        found = np.uint8(0)
        for x in range(row.size):
            found = max(found, np.uint8(row[x] == 1))  # a byte max: vectorised
        live[i] = found
        if r <= i < n_pad - r:  # one of the band's own rows: any state at all?
            inner = row[r:]
            for x in range(width):
                occupied = max(occupied, inner[x])
    count = 0
    lit_rows = 0  # live rows in the window of row y: padded rows y..y+2r
    for i in range(w - 1):
        lit_rows += live[i]
    for y in range(y0, y1):
        lit_rows += live[y - y0 + w - 1]
        if lit_rows:
            if count and lit[count - 1, 1] == y:
                lit[count - 1, 1] = y + 1
            else:
                lit[count, 0] = y
                lit[count, 1] = y + 1
                count += 1
        else:
            quiet_row(padded[y + r, r:], out[y + r, r:], width, n_states)
        lit_rows -= live[y - y0]
    return count, occupied == 0


# -- drivers: one per count kernel, so a rule compiles only the kernel it runs -------------------
#
# run_<kernel>(a, b, first, generations, tasks, r, width, sub, runs, hw, b_lo, b_hi, s_lo, s_hi,
#              n_states, skip, dst, src, rows, cols) -> int
#
# Generations ``first .. first + generations - 1`` of the bands ``tasks`` (``(n, 3)`` int64 rows
# ``(grid, y0, y1)``) of the padded grids ``a``/``b`` (``(B, Hp, Wp)``): generation ``g`` reads ``a``
# and writes ``b`` when ``g`` is even, the other way round when odd. Returns the first generation
# whose input held state 0 only in every band (its output, and every later one, is all 0: the
# caller stops there), else ``first + generations``.
#
# Bands of one grid overlap by ``2r`` rows, so two bands may write the same ring cell, with the
# same value: it is read from the interior of the grid being read, which nobody writes during the
# generation. Between generations every band must have finished (one call per generation per
# thread, and a barrier, when one grid's bands run on several threads).


@njit(cache=True, nogil=True)
def run_moore(a, b, first, generations, tasks, r, width, sub, runs, hw, b_lo, b_hi, s_lo, s_hi, n_states, skip,
              dst, src, rows, cols):
    """Generations of the Moore kernel (see the comment above)."""
    for g in range(first, first + generations):
        cur = a if g % 2 == 0 else b
        nxt = b if g % 2 == 0 else a
        empty = True
        for t in range(tasks.shape[0]):
            padded = cur[tasks[t, 0]]
            out = nxt[tasks[t, 0]]
            lit = np.empty((tasks[t, 2] - tasks[t, 1] + 1, 2), np.int64)
            count, quiet = prepare_band(padded, out, r, tasks[t, 1], tasks[t, 2], width, n_states, skip, dst, src,
                                        rows, cols, lit)
            empty &= quiet
            for k in range(count):
                moore_rows(padded, out, r, lit[k, 0], lit[k, 1], width, sub, hw, b_lo, b_hi, s_lo, s_hi, n_states)
        if empty:
            return g
    return first + generations


@njit(cache=True, nogil=True)
def run_diamond(a, b, first, generations, tasks, r, width, sub, runs, hw, b_lo, b_hi, s_lo, s_hi, n_states, skip,
                dst, src, rows, cols):
    """Generations of the von Neumann kernel (see the comment above)."""
    for g in range(first, first + generations):
        cur = a if g % 2 == 0 else b
        nxt = b if g % 2 == 0 else a
        empty = True
        for t in range(tasks.shape[0]):
            padded = cur[tasks[t, 0]]
            out = nxt[tasks[t, 0]]
            lit = np.empty((tasks[t, 2] - tasks[t, 1] + 1, 2), np.int64)
            count, quiet = prepare_band(padded, out, r, tasks[t, 1], tasks[t, 2], width, n_states, skip, dst, src,
                                        rows, cols, lit)
            empty &= quiet
            for k in range(count):
                diamond_rows(padded, out, r, lit[k, 0], lit[k, 1], width, sub, b_lo, b_hi, s_lo, s_hi, n_states)
        if empty:
            return g
    return first + generations


@njit(cache=True, nogil=True)
def run_spans(a, b, first, generations, tasks, r, width, sub, runs, hw, b_lo, b_hi, s_lo, s_hi, n_states, skip,
              dst, src, rows, cols):
    """Generations of the row-spans kernel (see the comment above)."""
    for g in range(first, first + generations):
        cur = a if g % 2 == 0 else b
        nxt = b if g % 2 == 0 else a
        empty = True
        for t in range(tasks.shape[0]):
            padded = cur[tasks[t, 0]]
            out = nxt[tasks[t, 0]]
            lit = np.empty((tasks[t, 2] - tasks[t, 1] + 1, 2), np.int64)
            count, quiet = prepare_band(padded, out, r, tasks[t, 1], tasks[t, 2], width, n_states, skip, dst, src,
                                        rows, cols, lit)
            empty &= quiet
            for k in range(count):
                span_rows(padded, out, r, lit[k, 0], lit[k, 1], width, runs, b_lo, b_hi, s_lo, s_hi, n_states)
        if empty:
            return g
    return first + generations
