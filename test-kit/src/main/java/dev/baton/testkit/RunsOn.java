package dev.baton.testkit;

import dev.baton.testservers.TestServer;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits a {@link DatabaseSuite} to some servers: on any other, each of its tests is skipped with the reason (see
 * {@link BatonDatabaseExtension}). For suites too slow to run on every server.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface RunsOn {
    /**
     * The servers the suite runs on.
     *
     * @return at least one server
     */
    TestServer[] value();

    /**
     * Why the suite runs on these only; part of the skip reason.
     *
     * @return a short reason
     */
    String because();
}
