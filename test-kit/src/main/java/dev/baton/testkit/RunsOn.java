package dev.baton.testkit;

import dev.baton.testservers.TestServer;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits a {@link DatabaseSuite} to some servers. Marked {@link OnEachServer}, the suite runs on those of its
 * compatibility test's {@link CompatibilityServers} that this names, and has no run on the others; given a server
 * some other way (its own {@link DatabaseSuite#server()}, an enclosing {@code @ParameterizedClass}), each of its tests
 * on any other server is skipped with the reason (see {@link BatonDatabaseExtension}). For suites too slow to run on
 * every server, or that cannot run on some.
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
     * Why the suite runs on these only: for the reader, and part of the skip reason.
     *
     * @return a short reason
     */
    String because();
}
