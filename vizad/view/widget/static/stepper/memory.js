// memory.js: the memory timeline of a reverse walkthrough for any set of checkpoints, made in
// the page from the plan Python sends (vizad/trace/memory.py's memory_plan), so that a
// checkpoint editor works without a kernel. It follows trace.memory() step for step (the
// Python tests compare the two on many graphs): the forward steps, then the walkthrough's,
// each forward value the walkthrough reads but that is not kept computed again (with the
// dropped values it is computed from) just before the first step that reads it; each value
// held from the step that makes it to the last step that reads it; with checkpoints, a
// checkpoint (and an input) held at least until the walkthrough reaches its own step; the
// gradients held to the end. No maths here: which step reads which value is the plan's.

// The timeline of `plan` with the checkpoints `keep` (forward positions; null: store every
// value): per step its phase ("forward", "recompute", "reverse"), label, walkthrough step
// number (reverse steps) and the values and bytes alive while it runs; the peak (the first
// step with the most values, 1-based) and the forward values computed again.
export function memoryTimeline(plan, keep) {
  const forward = plan.forward;
  const kept = keep == null ? null : new Set(keep);
  const dropped = new Set();
  if (kept) forward.forEach((f, i) => !f.leaf && !kept.has(i) && dropped.add(i));

  const steps = forward.map((f, i) => ({
    phase: "forward",
    label: f.label,
    walkthrough: null,
    node: i,
    reads: f.inputs,
    takes: [],
    makes: [],
  }));
  const recomputed = [];
  const again = new Set();
  plan.reverse.forEach((r, j) => {
    const needed = new Set();
    const stack = r.reads.filter((i) => dropped.has(i) && !again.has(i));
    while (stack.length) {
      const i = stack.pop();
      if (needed.has(i) || again.has(i)) continue;
      needed.add(i);
      for (const x of forward[i].inputs) if (dropped.has(x)) stack.push(x);
    }
    for (const i of [...needed].sort((a, b) => a - b)) {
      steps.push({
        phase: "recompute",
        label: forward[i].label,
        walkthrough: null,
        node: i,
        reads: forward[i].inputs,
        takes: [],
        makes: [],
      });
      recomputed.push(i);
      again.add(i);
    }
    steps.push({
      phase: "reverse",
      label: r.label,
      walkthrough: j + 1,
      node: r.node,
      reads: r.reads,
      takes: r.takes,
      makes: r.makes,
    });
  });

  // each value's stay: made at one step, held to the last that reads it
  const lives = [];
  const current = new Map(); // forward position → its life now
  const made = new Map(); // value number → its life
  const backward = steps.findIndex((s) => s.phase !== "forward");
  steps.forEach((s, t) => {
    if (t === backward) for (const i of dropped) current.delete(i);
    for (const i of s.reads) {
      const life = current.get(i);
      life.end = Math.max(life.end, t);
    }
    for (const v of s.takes) {
      const life = made.get(v);
      life.end = Math.max(life.end, t);
    }
    if (s.phase !== "reverse") {
      const life = { made: t, end: t, bytes: forward[s.node].bytes, node: s.node, value: null };
      current.set(s.node, life);
      lives.push(life);
    } else {
      for (const v of s.makes) {
        const life = { made: t, end: t, bytes: plan.values[v].bytes, node: null, value: v };
        made.set(v, life);
        lives.push(life);
      }
    }
  });
  const last = steps.length - 1;
  const stepOf = new Map();
  steps.forEach((s, t) => s.phase === "reverse" && s.node != null && stepOf.set(s.node, t));
  for (const life of lives) {
    if (life.value != null && plan.values[life.value].result) life.end = last;
    else if (
      kept &&
      life.node != null &&
      steps[life.made].phase === "forward" &&
      (kept.has(life.node) || forward[life.node].leaf) &&
      stepOf.has(life.node)
    )
      life.end = Math.max(life.end, stepOf.get(life.node));
  }

  const count = new Array(steps.length + 1).fill(0);
  const size = new Array(steps.length + 1).fill(0);
  for (const life of lives) {
    count[life.made] += 1;
    count[life.end + 1] -= 1;
    size[life.made] += life.bytes;
    size[life.end + 1] -= life.bytes;
  }
  let values = 0;
  let bytes = 0;
  let peakValues = 0;
  let peakBytes = 0;
  let peakStep = 0;
  const out = steps.map((s, t) => {
    values += count[t];
    bytes += size[t];
    if (values > peakValues) [peakValues, peakStep] = [values, t + 1];
    peakBytes = Math.max(peakBytes, bytes);
    return { phase: s.phase, label: s.label, walkthrough: s.walkthrough, values, bytes };
  });
  return { steps: out, peakValues, peakBytes, peakStep, recomputed, lives };
}

// The forward positions and made-value numbers alive while step `number` (1-based) runs.
export function aliveAt(timeline, number) {
  const t = number - 1;
  const alive = { forward: [], values: [] };
  for (const life of timeline.lives) {
    if (life.made <= t && t <= life.end) {
      if (life.node != null) alive.forward.push(life.node);
      else alive.values.push(life.value);
    }
  }
  return alive;
}
