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
 * Runs a {@code @Nested} {@link DatabaseSuite} in each run of its compatibility test ({@link CompatibilityServers})
 * whose server its {@link RunsOn} names ({@link SuiteServers}). On another server the suite has no run, and reports
 * nothing (not a skip: the suite is not meant for that server). The server is the argument of the run;
 * {@link BatonDatabaseExtension} hands it to the suite. Each run of the compatibility test has its own instance of
 * the suite, set up and torn down once.
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
