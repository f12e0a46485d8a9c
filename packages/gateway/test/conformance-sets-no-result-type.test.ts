import { describeRequirementSets, matrixServer } from "./conformance-requirements.ts"

describeRequirementSets(matrixServer("fixture-no-result-type"))
