package dev.baton.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.params.ArgumentCountValidationMode;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * Runs a {@code @Nested} {@link DatabaseSuite} once per server ({@link SuiteServers}): each server of the enclosing
 * test's {@link CompatibilityServers} that the suite's {@link RunsOn} names. A suite that runs on none of them
 * has no run there, and reports nothing (not a skip: the suite is not meant for those servers). The server is the
 * argument of the run; {@link BatonDatabaseExtension} hands it to the suite.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@ParameterizedClass(
        name = "{0}",
        allowZeroInvocations = true,
        argumentCountValidation = ArgumentCountValidationMode.NONE)
@ArgumentsSource(SuiteServers.class)
public @interface OnEachServer {}
