/**
 * Actuator support shared by the Boot 3.5 and Boot 4 starters: the {@code baton} endpoint, present when the
 * application has Spring Boot's Actuator, and the {@link dev.baton.spring.boot.actuate.HealthReport} behind each
 * starter's health indicator ({@code dev.baton.spring.boot.health}). {@link org.jspecify.annotations.NullMarked}.
 */
@NullMarked
package dev.baton.spring.boot.actuate;

import org.jspecify.annotations.NullMarked;
