package dev.baton.bench.claim;

import dev.baton.bench.Latency;
import dev.baton.bench.Measurement;
import dev.baton.bench.Target;
import java.util.concurrent.atomic.AtomicIntegerArray;

/** The verification shared by the claim drainers: every row executed once, completed once, claimed once. */
final class DrainCheck {
    private DrainCheck() {}

    static Measurement measure(
            Target target, long history, int tasks, AtomicIntegerArray executions, double seconds, boolean finished)
            throws Exception {
        return measure(target, history, tasks, executions, seconds, finished, false);
    }

    /** As above; with {@code guid}, a row is done only with its guid set. */
    static Measurement measure(
            Target target,
            long history,
            int tasks,
            AtomicIntegerArray executions,
            double seconds,
            boolean finished,
            boolean guid)
            throws Exception {
        long lost = 0;
        long duplicates = 0;
        for (int i = 0; i < tasks; i++) {
            int n = executions.get(i);
            if (n == 0) {
                lost++;
            } else if (n > 1) {
                duplicates += n - 1;
            }
        }
        long[] db = JobTable.verify(target, history, guid);
        long failures = lost + duplicates + db[0] + db[1] + (finished ? 0 : 1);
        String check = failures == 0
                ? "ok: " + tasks + " rows executed once, all done" + (guid ? " with their guid" : "")
                        + ", each claimed once"
                : "FAILED: lost " + lost + ", duplicates " + duplicates + ", not done " + db[0] + ", claimed twice "
                        + db[1] + (finished ? "" : ", timed out");
        return Measurement.throughput(tasks, seconds, Latency.Summary.NONE, failures, check);
    }
}
