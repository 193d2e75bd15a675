package dev.baton.bench;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** Appends every run to {@code results.csv} as soon as it finishes, so an interrupted invocation keeps its data. */
final class Csv implements AutoCloseable {
    static final String HEADER =
            "ended_at,target,workload,variant,axis,x,point,rep,order_in_rep,ops,seconds,value,unit,"
                    + "mean_us,p50_us,p99_us,mean_fastest99_us,client_cpu_us_per_op,client_alloc_bytes_per_op,failures,cpu_busy_pct,cpu_iowait_pct,cpu_steal_pct,jvm_cpu_pct,check";
    private final BufferedWriter out;

    Csv(Path file) throws IOException {
        out = Files.newBufferedWriter(file);
        out.write(HEADER);
        out.newLine();
        out.flush();
    }

    void write(Run r, String unit) throws IOException {
        Measurement m = r.m();
        out.write(String.join(
                ",",
                r.at().toString(),
                r.target(),
                r.workload(),
                r.variant(),
                r.point().axis(),
                Long.toString(r.point().x()),
                quote(r.point().label()),
                Integer.toString(r.rep()),
                Integer.toString(r.order()),
                Long.toString(m.ops()),
                num(m.seconds(), 3),
                num(m.value(), 1),
                quote(unit),
                num(m.latency().meanMicros(), 1),
                num(m.latency().p50Micros(), 1),
                num(m.latency().p99Micros(), 1),
                num(m.latency().trimmedMeanMicros(), 1),
                num(m.cpuMicrosPerOp(), 2),
                num(m.allocatedBytesPerOp(), 0),
                Long.toString(m.failures()),
                num(r.cpu().busy(), 1),
                num(r.cpu().iowait(), 1),
                num(r.cpu().steal(), 1),
                num(r.cpu().jvm(), 1),
                quote(m.check())));
        out.newLine();
        out.flush();
    }

    private static String num(double v, int decimals) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    private static String quote(String s) {
        return s.contains(",") || s.contains("\"") ? '"' + s.replace("\"", "\"\"") + '"' : s;
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
