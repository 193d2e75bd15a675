package h31t;

import java.io.FileWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/** Writes one line per finished test and per skipped test or container: status, path of display names. */
public class SuiteRunListener implements TestExecutionListener {
    private TestPlan plan;

    @Override
    public void testPlanExecutionStarted(TestPlan testPlan) {
        plan = testPlan;
    }

    @Override
    public void executionSkipped(TestIdentifier id, String reason) {
        write((id.isTest() ? "SKIPPED_TEST" : "SKIPPED_CONTAINER") + "\t" + path(id) + "\t" + reason);
    }

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
        if (id.isTest()) {
            String reason = result.getThrowable().map(t -> String.valueOf(t.getMessage()).replace('\n', ' ')).orElse("");
            write(result.getStatus() + "\t" + path(id) + "\t" + (reason.length() > 200 ? reason.substring(0, 200) : reason));
        } else if (result.getStatus() != TestExecutionResult.Status.SUCCESSFUL) {
            String reason = result.getThrowable().map(t -> String.valueOf(t.getMessage()).replace('\n', ' ')).orElse("");
            write("CONTAINER_" + result.getStatus() + "\t" + path(id) + "\t" + (reason.length() > 200 ? reason.substring(0, 200) : reason));
        }
    }

    private String path(TestIdentifier id) {
        List<String> names = new ArrayList<>();
        Optional<TestIdentifier> cur = Optional.of(id);
        while (cur.isPresent()) {
            TestIdentifier t = cur.get();
            if (t.getParentId().isPresent()) {
                names.add(t.getDisplayName());
            }
            cur = plan.getParent(t);
        }
        Collections.reverse(names);
        return String.join(" > ", names);
    }

    private static synchronized void write(String line) {
        try (PrintWriter w = new PrintWriter(new FileWriter(System.getProperty("h31t.out", "target/suite-runs.tsv"), true))) {
            w.println(line);
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }
}
