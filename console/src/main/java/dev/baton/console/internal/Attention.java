package dev.baton.console.internal;

import dev.baton.QueueHealth;
import dev.baton.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Why a queue needs the attention of the engineer on call, in words: dead rows, unknown sends, paused workers of this
 * process, an oldest eligible row older than the threshold, or a sample that failed. Said in text on the page (not in
 * colour only), from the latest sample.
 */
final class Attention {
    private Attention() {}

    /** The reasons {@code q} needs attention now, empty when it needs none. */
    static List<String> reasons(QueueAdmin<?> q, Sampler.Sample latest, Duration maxAge) {
        List<String> why = new ArrayList<>();
        QueueHealth h = latest.health();
        if (h == null) {
            why.add("measuring failed");
        } else {
            if (h.dead() > 0) {
                why.add(Pages.count(h.dead()) + " dead");
            }
            if (h.unknown() > 0) {
                why.add(Pages.count(h.unknown()) + (h.unknown() == 1 ? " unknown send" : " unknown sends"));
            }
            Duration age = h.oldestEligibleAge();
            if (age != null && age.compareTo(maxAge) > 0) {
                why.add("oldest eligible row " + Pages.age(age) + " old (over " + Pages.age(maxAge) + ")");
            }
        }
        List<Worker> workers = q.workers();
        long paused = workers.stream().filter(Worker::isPaused).count();
        if (paused > 0) {
            why.add(
                    paused == workers.size()
                            ? "paused in this process"
                            : paused + " of " + workers.size() + " workers paused in this process");
        }
        return why;
    }
}
