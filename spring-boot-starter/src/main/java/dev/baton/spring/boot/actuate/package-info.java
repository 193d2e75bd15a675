/**
 * Actuator support: the {@code baton} health indicator and the {@code baton} endpoint, present when the application
 * has Spring Boot's Actuator. {@link org.jspecify.annotations.NullMarked}.
 */
@NullMarked
package dev.baton.spring.boot.actuate;

import org.jspecify.annotations.NullMarked;
