package io.distlock.engine;

import java.time.Clock;
import java.time.Instant;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.syntax.ArchRuleDefinition;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import com.tngtech.archunit.library.dependencies.SliceRule;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import org.junit.jupiter.api.Test;

import io.distlock.engine.clock.WallClockReader;
import io.distlock.engine.cycle.Answer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Rules on the engine's structure that a review would otherwise have to catch. Its classes refer
 * to each other one way: no class reaches, through the types it uses, a class that uses it, so
 * that each can be read, and changed, knowing only what lies below it (a class and its nested
 * classes count as one). And no deadline depends on the wall clock.
 */
class EngineStructureTests {

	private static final String ENGINE = EngineStructureTests.class.getPackageName();

	@Test
	void engineClassesHaveNoTypeReferenceCycles() {
		JavaClasses engine = engineClasses();
		assertThat(engine).as("the engine's classes").hasSizeGreaterThan(20);
		noCyclesAmongClassesOf(ENGINE).check(engine);
	}

	@Test
	void cycleRuleFindsACycleBetweenTwoClasses() {
		// Negative control: two classes of a test package that use each other.
		String fixture = Answer.class.getPackageName();
		JavaClasses cyclic = new ClassFileImporter().importPackages(fixture);
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> noCyclesAmongClassesOf(fixture).check(cyclic))
			.withMessageContaining("Answer")
			.withMessageContaining("Question");
	}

	@Test
	void onlyTheDisplayFieldsReadTheWallClock() {
		JavaClasses engine = engineClasses();
		noWallClockReadsIn(ENGINE).check(engine);
	}

	@Test
	void wallClockRuleFindsARead() {
		// Negative control: a class of a test package that reads System.currentTimeMillis().
		String fixture = WallClockReader.class.getPackageName();
		JavaClasses reader = new ClassFileImporter().importPackages(fixture);
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> noWallClockReadsIn(fixture).check(reader))
			.withMessageContaining("currentTimeMillis");
	}

	/** The engine's main classes: the package of this test, without its tests and fixtures. */
	private static JavaClasses engineClasses() {
		return new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
			.importPackages(ENGINE);
	}

	/**
	 * Deadlines, waits and renewals run on {@link System#nanoTime()}, so that a wall-clock step on
	 * the host changes none of them: the only wall-clock reads allowed are the two display fields,
	 * a grant's {@code acquiredAt} (the {@code since} of {@code /actuator/locks}) and the loss
	 * counter's last loss.
	 */
	private static ArchRule noWallClockReadsIn(String packageName) {
		DescribedPredicate<JavaCall<?>> wallClock = new DescribedPredicate<>(
				"read the wall clock outside HeldGrant's constructor and LossCounter") {

			@Override
			public boolean test(JavaCall<?> call) {
				String owner = call.getTargetOwner().getName();
				String name = call.getName();
				boolean read = (owner.equals(System.class.getName()) && name.equals("currentTimeMillis"))
						|| (owner.equals(Instant.class.getName()) && name.equals("now"))
						|| call.getTargetOwner().isAssignableTo(Clock.class);
				String origin = call.getOriginOwner().getSimpleName();
				boolean display = (origin.equals("HeldGrant") && call.getOrigin().isConstructor())
						|| origin.equals("LossCounter");
				return read && !display;
			}

		};
		return ArchRuleDefinition.noClasses().that().resideInAPackage(packageName).should().callCodeUnitWhere(wallClock);
	}

	private static SliceRule noCyclesAmongClassesOf(String packageName) {
		return SlicesRuleDefinition.slices().assignedFrom(new EachTopLevelClass(packageName)).should().beFreeOfCycles();
	}

	/**
	 * One slice per top-level class of a package, holding its nested classes too; classes of
	 * other packages are left out.
	 */
	private record EachTopLevelClass(String packageName) implements SliceAssignment {

		@Override
		public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
			if (!javaClass.getPackageName().equals(this.packageName)) {
				return SliceIdentifier.ignore();
			}
			String name = javaClass.getName().substring(this.packageName.length() + 1);
			int nested = name.indexOf('$');
			return SliceIdentifier.of((nested < 0) ? name : name.substring(0, nested));
		}

		@Override
		public String getDescription() {
			return "each class of " + this.packageName + " with its nested classes";
		}

	}

}
