import { describeRequirementSets, matrixServer } from "./conformance-requirements.ts"

describeRequirementSets(matrixServer("server-everything"))
