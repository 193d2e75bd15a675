package dev.baton.examples.docs;

import dev.baton.Baton;
import dev.baton.CommitDurability;
import java.time.Duration;
import javax.sql.DataSource;

/** The commit durability of docs/src/transitions.md, compiled. */
final class CommitDurabilitySnippets {
    private CommitDurabilitySnippets() {}

    static Baton durableCommits(DataSource dataSource) {
        // tag::commit-durability[]
        Baton baton = Baton.builder(dataSource)
                .commitDurability(CommitDurability.REQUIRE, Duration.ofMillis(500))
                .build();
        // end::commit-durability[]
        return baton;
    }
}
